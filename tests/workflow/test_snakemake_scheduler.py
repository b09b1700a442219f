"""tst.snakemake_scheduler: Snakemake's re-plan timer, a thread the interpreter waits for at exit, becomes a daemon,
so a finished `snakemake` exits at once instead of up to one `max-jobs-per-timespan` timespan later."""

import subprocess
import sys
import threading

import pytest


class Scheduler:
    """What the re-plan timer touches of a JobScheduler: the semaphore a scheduling pass waits on."""

    def __init__(self):
        self._open_jobs = threading.Semaphore(0)


def started_timer(schedule, delay: float, scheduler=None) -> threading.Thread:
    """Call schedule(scheduler, delay); the timer thread it started."""
    before = set(threading.enumerate())
    schedule(scheduler or Scheduler(), delay)
    (timer,) = [t for t in threading.enumerate() if t not in before]
    return timer


def test_snakemakes_timer_holds_the_interpreter_and_the_patched_one_does_not(monkeypatch):
    from snakemake.scheduling.job_scheduler import JobScheduler

    from tst.snakemake_scheduler import exit_without_waiting

    # Snakemake's own (this process may have parsed the Snakefile, which patched it, already)
    own = getattr(JobScheduler._schedule_reevalutation, "_tst_original", JobScheduler._schedule_reevalutation)
    plain = started_timer(own, 0.01)
    assert not plain.daemon  # the interpreter's exit waits for it
    plain.join()
    monkeypatch.setattr(JobScheduler, "_schedule_reevalutation", own)
    assert exit_without_waiting() is True
    patched = JobScheduler._schedule_reevalutation
    assert exit_without_waiting() is True and JobScheduler._schedule_reevalutation is patched  # once
    scheduler = Scheduler()
    assert started_timer(patched, 0.05, scheduler).daemon
    assert scheduler._open_jobs.acquire(timeout=5)  # it still releases the scheduler when the delay ends


def test_a_snakemake_of_another_form_is_left_as_it_is(monkeypatch):
    from snakemake.scheduling.job_scheduler import JobScheduler

    from tst.snakemake_scheduler import exit_without_waiting

    def other(self, delay, reason):  # another signature: another form
        return None

    monkeypatch.setattr(JobScheduler, "_schedule_reevalutation", other)
    assert exit_without_waiting() is False
    assert JobScheduler._schedule_reevalutation is other


def test_a_finished_run_exits_before_its_timespan_ends(tmp_path):
    """One job under a 60 s timespan: Snakemake alone would wait out its last timer (up to 60 s) before exiting;
    patched as the workflow's Snakefile does, the command returns as soon as the job is done (well within the
    30 s this allows)."""
    (tmp_path / "Snakefile").write_text(
        "from tst.snakemake_scheduler import exit_without_waiting\nexit_without_waiting()\n\n"
        'rule make:\n    output: "out.txt"\n    shell: "echo done > {output}"\n'
    )
    command = [sys.executable, "-m", "snakemake", "--cores", "1", "--max-jobs-per-timespan", "1000/60s"]
    try:
        result = subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, timeout=30, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail("snakemake was still running 30 s after it started: it waited for its re-plan timer")
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert (tmp_path / "out.txt").read_text() == "done\n"
