"""One process per training job: an exclusive lock file in the job's output folder.

Snakemake's own locks do not protect a running job: Snakemake 9 removes the whole .snakemake/locks folder when
any run in the directory exits, and `rerun-incomplete` then lets another run start a second copy of a job
that is still training (both writing the same checkpoints). The training entry points therefore hold an
exclusive `fcntl.flock` on `<output folder>/<name>.lock` while they run; a second process fails at once with a
message naming the lock file. The kernel releases the lock when the holder exits, even after `kill -9`, so
a stale lock file never blocks a later run. The lock file is not a declared output: Snakemake never deletes it.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path


class JobLockedError(RuntimeError):
    """Another process holds the job's lock file."""


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
