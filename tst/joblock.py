"""One process per training job: an exclusive lock file in the job's output folder.

Snakemake's own locks do not protect a running job: Snakemake 9 removes the whole .snakemake/locks folder when
any run in the directory exits, and `rerun-incomplete` then lets another run start a second copy of a job
that is still training (both writing the same checkpoints). The training entry points therefore hold an
exclusive `fcntl.flock` on `<output folder>/<name>.lock` while they run; a second process fails at once with a
message naming the lock file. The kernel releases the lock when the holder exits, even after `kill -9`, so
a stale lock file never blocks a later run. The lock file is not a declared output: Snakemake never deletes it.

A refused job must also leave the live job's files alone. Snakemake deletes a job's declared outputs before it
runs it (an incomplete job's, after a killed run: the checkpoints and dev transfers the live job is writing) and
again when it fails, so a check inside the job comes too late. The workflow therefore looks at every training
lock before it starts any job (the Snakefile's onstart: refuse_live_jobs) and stops the run, naming the locks,
while one is held.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = "train.lock"  # in a trained model's folder (tst.layout.model)


class JobLockedError(RuntimeError):
    """Another process holds the job's lock file."""


def is_held(path: str | Path) -> bool:
    """Whether a process holds the lock on `path` now (a lock file that does not exist is not held)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released by the close below
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def training_locks(datasets, root: str | Path = ".") -> list[Path]:
    """The lock file of every trained model's folder of these datasets that exists under `root`."""
    from tst import layout

    return [p for d in datasets for p in sorted(Path(root).glob(f"{layout.model(d, '*', '*')}/{LOCK_FILE}"))]


def refuse_live_jobs(lock_files) -> None:
    """JobLockedError naming the lock files of `lock_files` that a process holds, before any job of a run
    starts (and so before Snakemake deletes the outputs of the job it would run again)."""
    busy = sorted(str(p) for p in lock_files if is_held(p))
    if busy:
        raise JobLockedError(
            f"{len(busy)} training job(s) of an earlier run are still running (they hold {', '.join(busy)}): "
            "this run stops before starting any job, so that none of their files is deleted. Wait for them to "
            "finish, or stop them (the lock is released when the process exits, even after kill -9), then "
            "rerun; do not delete the lock files."
        )


@contextmanager
def job_lock(path: str | Path):
    """Hold an exclusive lock on `path` (created with its folder) for the duration of the block; raise
    JobLockedError at once when another process holds it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise JobLockedError(
                f"{path} is locked: another process is running this training job right now (e.g. a second "
                f"snakemake run in the same folder). Wait for it to finish, or stop it, then rerun; do not "
                f"delete the lock file (the lock is released when its process exits, even after kill -9)."
            ) from None
        yield path
    finally:
        os.close(fd)  # closing the descriptor releases the lock
