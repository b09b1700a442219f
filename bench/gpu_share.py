"""Several trainings on one device at once: how many updates per second the device gives in all, and each one.

bench/gpu_check.py runs it (--concurrency 1 2 4 8): for each variant and each count k, k processes each
build the model, take `warmup` training steps, wait until all k are ready, then take `steps` timed steps of
the trainer's path (tst.train.step.train_step through gpu_check.Run: fused Adam and TF32 on CUDA) on the same
device. The aggregate rate is the k x steps updates over the span from the first process's start to the last
one's end; each training's rate is its steps over its own time. The worker processes are started once (torch
imported and CUDA initialized once per process) and reused for every measurement. On a GPU whose driver runs
the CUDA MPS daemon (`nvidia-cuda-mps-control -d`) the kernels of the k processes run side by side instead of
time-sliced; gpu_check measures both where the daemon can be started.

The rates (one JSON object, written by gpu_check.py --rates) are what `tst cost` reads (tst.cost).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from bench_transfer import VARIANTS  # bench/ (scripts run as python bench/<name>.py)

from tst.variants import resolve

TIMEOUT_S = 180  # the longest wait for a worker's next message (a hung measurement is recorded as failed)


def _worker(tasks, results, device_name: str, threads: int) -> None:
    """One training process: runs the tasks it is sent until it gets None."""
    import torch
    from gpu_check import make_run
    from timing import sync

    if threads:
        torch.set_num_threads(threads)
    device = torch.device(device_name)
    while True:
        task = tasks.get()
        if task is None:
            return
        variant, cfg, vocab, batches, para, warmup, steps = task
        try:
            run = make_run(variant, cfg, vocab, device, True, "fp32")
            for k in range(warmup):
                run.step(k, batches[k % len(batches)], para)
            sync(device)
            results.put(("ready", os.getpid()))
            tasks.get()  # "go": every process of the measurement is ready
            done, t0 = 0, time.monotonic()
            for k in range(warmup, warmup + steps):
                run.step(k, batches[k % len(batches)], para)
                done += 1
            sync(device)
            results.put(("done", t0, time.monotonic(), done))
        except Exception:  # noqa: BLE001 (any failure is reported to the parent, which records it)
            results.put(("error", traceback.format_exc()))
        finally:
            run = None
            if device.type == "cuda":
                torch.cuda.empty_cache()


class Pool:
    """`size` training processes on `device` (a torch device name, e.g. cuda:0 or cpu), each with `threads`
    CPU threads (0: torch's default); `env`: extra environment variables of the processes (CUDA MPS's)."""

    def __init__(self, size: int, device: str, threads: int = 0, env: dict | None = None):
        self.size, self.device, self.threads, self.env = size, device, threads, env
        self.procs, self.tasks = [], []
        self.start()

    def start(self) -> None:
        ctx = mp.get_context("spawn")  # a fresh interpreter: CUDA cannot be forked
        self.results = ctx.Queue()
        self.tasks = [ctx.Queue() for _ in range(self.size)]
        env = self.env
        device, threads = self.device, self.threads
        saved = {k: os.environ.get(k) for k in env or {}}
        os.environ.update(env or {})  # the spawned processes start with this environment
        try:
            self.procs = [
                ctx.Process(target=_worker, args=(q, self.results, device, threads), daemon=True)
                for q in self.tasks
            ]
            for p in self.procs:
                p.start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def _get(self, kind: str):
        msg = self.results.get(timeout=TIMEOUT_S)
        if msg[0] == "error":
            raise RuntimeError(msg[1])
        assert msg[0] == kind, msg
        return msg

    def measure(
        self, variant: str, jobs: int, steps: int, cfg, vocab, batches, para, warmup: int = 3
    ) -> dict:
        """`jobs` concurrent trainings of `variant`, `steps` timed updates each -> the record (rates in
        updates per second)."""
        if jobs > len(self.procs):
            raise ValueError(
                f"{jobs} concurrent trainings need {jobs} processes; the pool has {len(self.procs)}"
            )
        rec = {"variant": variant, "settings": resolve(VARIANTS[variant]), "jobs": jobs, "steps": steps}
        for q in self.tasks[:jobs]:
            q.put((variant, cfg, vocab, batches, para, warmup, steps))
        try:
            for _ in range(jobs):
                self._get("ready")
            for q in self.tasks[:jobs]:
                q.put("go")
            ends = [self._get("done")[1:] for _ in range(jobs)]
        except (RuntimeError, queue.Empty) as e:
            self.close(
                kill=True
            )  # the others may wait for "go" or still train: a fresh pool for what follows
            self.start()
            rec["error"] = (str(e) or type(e).__name__).strip().splitlines()[-1]
            return rec
        span = max(e[1] for e in ends) - min(e[0] for e in ends)
        rec["updates"] = sum(e[2] for e in ends)
        rec["seconds"] = round(span, 6)  # to the microsecond: updates / seconds recomputes updates_per_s
        rec["updates_per_s"] = round(rec["updates"] / span, 3)
        rec["per_training_updates_per_s"] = sorted(round(e[2] / (e[1] - e[0]), 3) for e in ends)
        return rec

    def close(self, kill: bool = False) -> None:
        for q, p in zip(self.tasks, self.procs):
            if kill:
                p.kill()
            elif p.is_alive():
                q.put(None)
        for p in self.procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
                p.join()
        self.procs, self.tasks = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def table(records: list[dict]) -> list[str]:
    """The rates as a Markdown table: per variant and count the aggregate updates/s, each training's (mean,
    slowest) and the aggregate against one training alone."""
    lines = [
        "| variant | MPS | trainings | aggregate updates/s | per training (mean, slowest) | vs 1 training |",
        "|---|---|---:|---:|---:|---:|",
    ]
    alone = {
        (r["variant"], r["mps"]): r["updates_per_s"] for r in records if r["jobs"] == 1 and "error" not in r
    }
    for r in records:
        mps = "on" if r["mps"] else "off"
        if "error" in r:
            lines.append(f"| {r['variant']} | {mps} | {r['jobs']} | failed: {r['error']} | | |")
            continue
        each = r["per_training_updates_per_s"]
        base = alone.get((r["variant"], r["mps"]))
        gain = f"{r['updates_per_s'] / base:.2f}x" if base else ""
        lines.append(
            f"| {r['variant']} | {mps} | {r['jobs']} | {r['updates_per_s']:.2f} | "
            f"{sum(each) / len(each):.2f}, {min(each):.2f} | {gain} |"
        )
    return lines


def start_mps() -> tuple[dict | None, str]:
    """Start a CUDA MPS control daemon with its own pipe and log folders: (the environment its clients need,
    '') when it started, else (None, why not)."""
    exe = shutil.which("nvidia-cuda-mps-control")
    if not exe:
        return None, "nvidia-cuda-mps-control is not on PATH"
    root = Path(tempfile.mkdtemp(prefix="tst-mps-"))
    env = {"CUDA_MPS_PIPE_DIRECTORY": str(root / "pipe"), "CUDA_MPS_LOG_DIRECTORY": str(root / "log")}
    for d in env.values():
        Path(d).mkdir()
    try:
        out = subprocess.run(
            [exe, "-d"], env={**os.environ, **env}, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"nvidia-cuda-mps-control -d: {e}"
    if out.returncode != 0:
        return (
            None,
            f"nvidia-cuda-mps-control -d exited {out.returncode}: {(out.stderr or out.stdout).strip()}",
        )
    time.sleep(1)
    return env, ""


def stop_mps(env: dict) -> None:
    """Stop the daemon start_mps started."""
    exe = shutil.which("nvidia-cuda-mps-control")
    try:
        subprocess.run([exe], input="quit\n", env={**os.environ, **env}, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        print("the CUDA MPS daemon did not quit within 60 s", file=sys.stderr, flush=True)
