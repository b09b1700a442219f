"""Which GPU a job trains or scores on: every GPU of the machine in use, `jobs_per_gpu` jobs on each.

Snakemake's `--resources gpu=N` caps how many GPU jobs run at once but does not say which GPU each one takes;
without more, every job would use cuda:0. A job therefore takes a slot of a lock-file pool: `jobs_per_gpu`
files per visible GPU in SLOT_DIR (a folder of the machine's temporary directory, shared by every run and
every working folder on the machine), held with an exclusive `fcntl.flock` for the life of the process. The
first slot no other process holds is this job's, taken slot by slot across the GPUs (slot 0 of every GPU,
then slot 1 of every GPU, ...), so that jobs spread over the GPUs before any GPU runs two; the kernel releases
the lock when the process exits, even after `kill -9`, so a dead job's slot is free again at once and a stale
file never blocks one.

The setting: the config's `jobs_per_gpu` (default 1), which the workflow hands its jobs as the environment
variable TST_JOBS_PER_GPU (JOBS_PER_GPU_ENV); a process started without it runs one job per GPU. Slot 0 of a
GPU is `gpu-<id>.lock` and slot k > 0 `gpu-<id>.<k>.lock`, so runs with different settings on one machine
still agree on a GPU's first job.

The files are named by the GPU's entry in CUDA_VISIBLE_DEVICES when that is set (an index or a UUID), so
processes that see different subsets of the machine's GPUs still agree on which physical GPU is taken.
Under SLURM (SLURM_JOB_ID set) the scheduler has already chosen: CUDA_VISIBLE_DEVICES lists the job's own
GPUs, and the job uses the first of them, cuda:0, without a lock. With one GPU visible there is nothing to
choose (every job uses it, whatever jobs_per_gpu says). When every slot is held (more GPU jobs than slots: a
`--resources gpu=N` above GPUs x jobs_per_gpu, or GPU jobs declared with gpu=0), the job shares a GPU, chosen
by its process id, with a warning.
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
JOBS_PER_GPU_ENV = "TST_JOBS_PER_GPU"  # the config's jobs_per_gpu, as the workflow hands it to its jobs
# the slots this process holds: (lock folder, GPU ids, jobs per GPU) -> (GPU index, slot, open descriptor);
# kept open until exit
_HELD: dict[tuple[str, tuple[str, ...], int], tuple[int, int, int]] = {}


def under_slurm(env=None) -> bool:
    """A SLURM job with its GPUs assigned: SLURM_JOB_ID and a non-empty CUDA_VISIBLE_DEVICES."""
    env = os.environ if env is None else env
    return bool(env.get("SLURM_JOB_ID")) and bool(env.get("CUDA_VISIBLE_DEVICES", "").strip())


def jobs_per_gpu(env=None) -> int:
    """How many jobs share one GPU: TST_JOBS_PER_GPU (a whole number from 1), else 1."""
    env = os.environ if env is None else env
    value = env.get(JOBS_PER_GPU_ENV, "").strip() or "1"
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{JOBS_PER_GPU_ENV}={value!r}: the jobs per GPU must be a whole number from 1")
    return int(value)


def hand_to_jobs(per_gpu: int, env=None) -> None:
    """Set TST_JOBS_PER_GPU to `per_gpu` in `env` (this process's environment): the workflow does it with the
    config's jobs_per_gpu, so that the jobs it starts, which inherit the environment, read it."""
    env = os.environ if env is None else env
    env[JOBS_PER_GPU_ENV] = str(int(per_gpu))


def gpu_ids(count: int, env=None) -> list[str]:
    """A stable name per visible GPU (index 0..count-1): its CUDA_VISIBLE_DEVICES entry when set, else the
    index; characters other than letters, digits, '-' and '_' become '_' (file names)."""
    env = os.environ if env is None else env
    listed = [x.strip() for x in env.get("CUDA_VISIBLE_DEVICES", "").split(",") if x.strip()]
    names = listed[:count] if len(listed) >= count else [str(i) for i in range(count)]
    return [re.sub(r"[^A-Za-z0-9_-]", "_", n) for n in names]


def slot_file(gpu_id: str, slot: int) -> str:
    """The lock file's name of slot `slot` of the GPU named `gpu_id`: gpu-<id>.lock for slot 0, else
    gpu-<id>.<slot>.lock."""
    return f"gpu-{gpu_id}.lock" if slot == 0 else f"gpu-{gpu_id}.{slot}.lock"


def slot_order(count: int, per_gpu: int) -> list[tuple[int, int]]:
    """The (GPU index, slot) pairs in the order jobs take them: slot 0 of every GPU, then slot 1, ..."""
    return [(g, k) for k in range(per_gpu) for g in range(count)]


def acquire_slot(
    ids: list[str], lock_dir: str | Path = SLOT_DIR, per_gpu: int = 1
) -> tuple[int, int, int] | None:
    """The first free slot of the `per_gpu` slots of each GPU of `ids` (in slot_order) whose lock file in
    lock_dir nobody holds, locked: (its GPU index, its slot, the open descriptor that holds the lock; close
    it to free it). None when every one is held."""
    lock_dir = Path(lock_dir)
    if not lock_dir.exists():
        lock_dir.mkdir(parents=True, exist_ok=True)
        try:
            os.chmod(lock_dir, 0o1777)  # every user of the machine shares its GPUs (sticky, as /tmp)
        except PermissionError:
            pass  # another user created it first
    for i, k in slot_order(len(ids), per_gpu):
        path = lock_dir / slot_file(ids[i], k)
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
        return i, k, fd
    return None


def job_gpu(count: int, env=None, lock_dir: str | Path = SLOT_DIR) -> int:
    """The CUDA index (of the `count` visible GPUs) this process uses: 0 under SLURM or with one GPU, else the GPU of the slot of the pool it holds (taken at the first call, kept
    until the process exits); every slot held: a GPU shared, by process id, with a warning."""
    env = os.environ if env is None else env
    if count <= 1 or under_slurm(env):
        return 0
    per_gpu = jobs_per_gpu(env)
    ids = gpu_ids(count, env)
    key = (str(lock_dir), tuple(ids), per_gpu)
    if key in _HELD:
        return _HELD[key][0]
    got = acquire_slot(ids, lock_dir, per_gpu)
    if got is None:
        shared = os.getpid() % count
        log.warning(
            "all %d slots (%d GPUs x %d jobs per GPU) are taken by other jobs (locks in %s); sharing cuda:%d. "
            "Give Snakemake at most --resources gpu=%d, and each GPU job resources gpu=1",
            count * per_gpu,
            count,
            per_gpu,
            lock_dir,
            shared,
            count * per_gpu,
        )
        return shared
    _HELD[key] = got
    gpu, slot, _ = got
    log.info(
        "using cuda:%d (GPU %s, slot %d of %d), slot lock %s",
        gpu,
        ids[gpu],
        slot + 1,
        per_gpu,
        Path(lock_dir) / slot_file(ids[gpu], slot),
    )
    return gpu
