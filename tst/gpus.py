"""Which GPU a job trains or scores on: one job per GPU, every GPU of the machine in use.

Snakemake's `--resources gpu=N` caps how many GPU jobs run at once but does not say which GPU each one takes;
without more, every job would use cuda:0. A job therefore takes a slot of a lock-file pool: one file per visible
GPU in SLOT_DIR (a folder of the machine's temporary directory, shared by every run and every working folder on
the machine), held with an exclusive `fcntl.flock` for the life of the process. The first GPU whose file no
other process holds is this job's; the kernel releases the lock when the process exits, even after `kill -9`,
so a dead job's GPU is free again at once and a stale file never blocks one.

The files are named by the GPU's entry in CUDA_VISIBLE_DEVICES when that is set (an index or a UUID), so
processes that see different subsets of the machine's GPUs still agree on which physical GPU is taken.
Under SLURM (SLURM_JOB_ID set) the scheduler has already chosen: CUDA_VISIBLE_DEVICES lists the job's own
GPUs, and the job uses the first of them, cuda:0, without a lock. With one GPU visible there is nothing to
choose. When every GPU is held (more GPU jobs than GPUs: a `--resources gpu=N` above the GPU count, or GPU jobs
declared with gpu=0), the job shares one, chosen by its process id, with a warning.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

SLOT_DIR = Path(tempfile.gettempdir()) / "tst-gpu-slots"
# the slots this process holds: (lock folder, GPU ids) -> (index, open descriptor); kept open until exit
_HELD: dict[tuple[str, tuple[str, ...]], tuple[int, int]] = {}


def under_slurm(env=None) -> bool:
    """A SLURM job with its GPUs assigned: SLURM_JOB_ID and a non-empty CUDA_VISIBLE_DEVICES."""
    env = os.environ if env is None else env
    return bool(env.get("SLURM_JOB_ID")) and bool(env.get("CUDA_VISIBLE_DEVICES", "").strip())


def gpu_ids(count: int, env=None) -> list[str]:
    """A stable name per visible GPU (index 0..count-1): its CUDA_VISIBLE_DEVICES entry when set, else the
    index; characters other than letters, digits, '-' and '_' become '_' (file names)."""
    env = os.environ if env is None else env
    listed = [x.strip() for x in env.get("CUDA_VISIBLE_DEVICES", "").split(",") if x.strip()]
    names = listed[:count] if len(listed) >= count else [str(i) for i in range(count)]
    return [re.sub(r"[^A-Za-z0-9_-]", "_", n) for n in names]


def acquire_slot(ids: list[str], lock_dir: str | Path = SLOT_DIR) -> tuple[int, int] | None:
    """The first GPU of `ids` whose lock file in lock_dir nobody holds, locked: (its index, the open descriptor
    that holds the lock; close it, or release_slot, to free it). None when every one is held."""
    lock_dir = Path(lock_dir)
    if not lock_dir.exists():
        lock_dir.mkdir(parents=True, exist_ok=True)
        try:
            os.chmod(lock_dir, 0o1777)  # every user of the machine shares its GPUs (sticky, as /tmp)
        except PermissionError:
            pass  # another user created it first
    for i, gid in enumerate(ids):
        path = lock_dir / f"gpu-{gid}.lock"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)
        except PermissionError as e:
            raise PermissionError(
                f"{path}: cannot open the GPU slot lock file ({e.strerror}); make {lock_dir} writable for "
                "every user of the GPUs (chmod 1777), or remove it"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return i, fd
    return None


def release_slot(fd: int) -> None:
    """Free a slot acquire_slot returned (closing its descriptor releases the lock)."""
    os.close(fd)


def job_gpu(count: int, env=None, lock_dir: str | Path = SLOT_DIR) -> int:
    """The CUDA index (of the `count` visible GPUs) this process uses: 0 under SLURM or with one GPU, else the
    slot of the pool it holds (taken at the first call, kept until the process exits); every GPU held: one
    shared, by process id, with a warning."""
    env = os.environ if env is None else env
    if count <= 1 or under_slurm(env):
        return 0
    ids = gpu_ids(count, env)
    key = (str(lock_dir), tuple(ids))
    if key in _HELD:
        return _HELD[key][0]
    got = acquire_slot(ids, lock_dir)
    if got is None:
        shared = os.getpid() % count
        log.warning(
            "all %d GPUs are taken by other jobs (locks in %s); sharing cuda:%d. Give Snakemake at most "
            "--resources gpu=%d, and each GPU job resources gpu=1",
            count,
            lock_dir,
            shared,
            count,
        )
        return shared
    _HELD[key] = got
    log.info(
        "using cuda:%d (GPU %s), slot lock %s",
        got[0],
        ids[got[0]],
        Path(lock_dir) / f"gpu-{ids[got[0]]}.lock",
    )
    return got[0]
