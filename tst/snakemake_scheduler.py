"""Snakemake's scheduler lets a finished run exit at once instead of waiting out its last re-plan timer.

While jobs wait or run, Snakemake 9's scheduler (`snakemake.scheduling.job_scheduler.JobScheduler`) starts a
`threading.Timer` of the job rate limit's timespan after each scheduling pass (`_schedule_reevalutation`), so
that jobs held back by the limit are planned again when the timespan ends. The timer is not a daemon thread, so
the interpreter waits for the last one before it exits: a run that has finished, or stopped on a failed job,
stays alive for up to one timespan. The workflow profile's `max-jobs-per-timespan: 1000/10s`
(profiles/default/config.yaml: one re-plan every 10 s instead of every second) made that up to 10 s at the end of
every `snakemake` command that runs a job, and of every job a cluster runs through `snakemake` (docs/performance.md).

`exit_without_waiting()` makes the timer a daemon thread: it still releases the scheduler when the timespan ends
while the run goes on, and no longer holds the process at its end. Where Snakemake's scheduler is not the one this
was written for (another major version), it changes nothing."""

import inspect
import threading


def exit_without_waiting() -> bool:
    """Patch Snakemake (idempotent) so that its re-plan timer is a daemon thread; True when patched (or already),
    False when this Snakemake's scheduler does not have the expected form, left as it is."""
    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError:
        return False
    schedule = getattr(JobScheduler, "_schedule_reevalutation", None)  # (sic: Snakemake's spelling)
    if schedule is None or list(inspect.signature(schedule).parameters) != ["self", "delay"]:
        return False
    if hasattr(schedule, "_tst_original"):  # patched already
        return True

    def schedule_reevaluation(self, delay) -> None:
        # as Snakemake's: after `delay` seconds, one more scheduling pass; a daemon, so exit does not wait for it
        timer = threading.Timer(delay, lambda: self._open_jobs.release())
        timer.daemon = True
        timer.start()

    schedule_reevaluation._tst_original = schedule  # Snakemake's own, kept for the tests
    JobScheduler._schedule_reevalutation = schedule_reevaluation
    return True
