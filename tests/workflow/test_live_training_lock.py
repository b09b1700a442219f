"""Safe under interrupts: when Snakemake is killed and its training job lives on, the next run is refused
before any job starts (the Snakefile's onstart, tst.joblock.refuse_live_jobs), so Snakemake deletes none of the
files the live job is writing (it deletes a job's declared outputs before running it and after it fails)."""

import subprocess
import sys

import yaml
from conftest import REPO, SNAKEMAKE, tiny_config

from tst import layout
from tst.joblock import LOCK_FILE, is_held, refuse_live_jobs, training_locks

HOLD = (
    "import sys, time; from tst.joblock import job_lock\n"
    "with job_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(300)\n"
)


def _hold(lock, cwd):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)], cwd=cwd, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_is_held_only_while_a_process_holds_it(tmp_path):
    lock = tmp_path / "m" / LOCK_FILE
    assert not is_held(lock)  # absent
    holder = _hold(lock, REPO)
    try:
        assert is_held(lock) and is_held(lock)  # asking does not take it
        refused = None
        try:
            refuse_live_jobs([lock, tmp_path / "other" / LOCK_FILE])
        except RuntimeError as e:
            refused = str(e)
        assert refused and str(lock) in refused and "other" not in refused
    finally:
        holder.kill()  # SIGKILL: the kernel releases the lock
        holder.wait()
    assert lock.exists() and not is_held(lock)
    refuse_live_jobs([lock])  # free: no error


def test_training_locks_are_the_model_folders_lock_files(tmp_path):
    locks = [tmp_path / layout.model("demo", v, s) / LOCK_FILE for v, s in (("M0", 1), ("M2", 2))]
    for p in [*locks, tmp_path / layout.model("other", "M0", 1) / LOCK_FILE]:
        p.parent.mkdir(parents=True)
        p.touch()
    assert training_locks(["demo"], tmp_path) == locks


def test_a_run_is_refused_while_a_training_job_lives_and_deletes_none_of_its_files(tmp_path):
    """A model folder as a killed run leaves it: a checkpoint and a dev transfer written by a training job that
    still runs (here a process holding its lock). The next `snakemake` plans that job again (its outputs are
    older than the inputs it is about to rebuild), stops before any job with the lock named, and every file
    is still there, byte for byte."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(tiny_config(REPO)))
    written = {
        layout.checkpoint("demo", "M0", 1, "ep0.5"): b"checkpoint being written\n",
        layout.checkpoint("demo", "M0", 1, "ep1.0"): b"last checkpoint\n",
        layout.transfer("demo", "M0", 1, "dev", "ep0.5", 0): b"a dev transfer\n",
    }
    for path, data in written.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    lock = tmp_path / layout.model("demo", "M0", 1) / LOCK_FILE
    holder = _hold(lock, REPO)
    try:
        result = subprocess.run(
            [SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--cores", "1"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        holder.kill()
        holder.wait()
    out = result.stdout + result.stderr
    assert result.returncode == 1, out[-3000:]
    assert f"they hold {layout.model('demo', 'M0', 1)}/{LOCK_FILE}" in out
    assert "train_transfer" in out  # it was planned...
    assert "rule prepare_data" not in out and "Finished job" not in out  # ...but no job started
    for path, data in written.items():
        assert (tmp_path / path).read_bytes() == data, path
