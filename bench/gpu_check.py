"""The GPU check's measurements (bench/gpu_check.sh runs this, then the model and training tests).

python bench/gpu_check.py [--device cuda|cpu] [--data DIR] [--dims paper|demo] [--steps 20]
                          [--compare-steps 200] [--variants M0 M2 M7] [--precision fp32 bf16] [--threads N]
                          [--compile auto|true] [--concurrency 1 2 4 8] [--concurrent-steps 20]
                          [--mps auto|off] [--rates results/gpu_check/rates.json]
Needs torch, numpy and pyyaml (no Snakemake). Prints, as readable lines and one JSON line each:
- the device (torch, CUDA, GPU name and count, TF32);
- per variant and precision, ms per training step at --dims (paper: configs/paper_dimensions.yaml, batch 64)
  of the plain path (per-parameter Adam, eager soft decoding), of the fast path (what the trainer runs on
  this device: fused Adam and TF32 for fp32 on CUDA) and of the graphed step (transfer.cuda_graph: the fast
  path's step as one CUDA graph, tst.train.graph_step; "needs CUDA" elsewhere), and the Shen-size Yelp epoch
  (4,184 steps) they give (--compile true: the fast path with compiled soft decoding);
- evaluator training throughput in fp32 and bf16 (bench/bench_evaluators.py: CNN, LSTM, GRU LM);
- the losses of --compare-steps steps of M2 from one initialization on the plain fp32 path, on the fast path and
  (on CUDA) on the graphed step;
- per variant, the aggregate updates/s of 1, 2, 4 and 8 (--concurrency) trainings at once on the one device,
  and each training's (bench/gpu_share.py; fast path, fp32, --concurrent-steps timed steps each), also with
  CUDA MPS where `nvidia-cuda-mps-control -d` starts (--mps auto); a table, and the JSON `tst cost` reads
  (--rates; docs/gpu.md).
Steps are timed on batches of one sentence length (the data's commonest), so that the compiled path and the
graphed step are timed after their graphs are built, not while they build them (compiled: one graph per length
and style; graphed: one per batch shape, captured at its third step); the epoch estimate is that step time x
4,184. Data: the first sentences of each style of Shen et al.'s Yelp files in --data
(sentiment.dev.{0,1}, as bench/bench_transfer.py), else the project's demo corpus (tst.data.demo).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from bench_transfer import VARIANTS, YELP_STEPS, settings  # bench/ (scripts run as python bench/<name>.py)
from timing import sync

from tst.cost import SIZE_KEYS
from tst.device import allow_tf32, pick_device
from tst.io import read_sentences
from tst.layout import GPU_RATES
from tst.models.gru_lm import GRULanguageModel
from tst.models.registry import build_model
from tst.optim import Adam
from tst.train.graph_step import GraphedStep
from tst.train.step import train_step
from tst.train.trainer import compile_soft_decode, compiles, make_optimizers
from tst.variants import resolve
from tst.vocab import Vocab

# The fast path's 200-step losses must stay this close to the plain path's (the mean of each term over the last
# 50 steps): TF32 matmuls (10-bit mantissa products) and fused kernels round differently, and adversarial
# training carries a difference forward, so the runs are compared on their level, not step by step.
MEAN_RTOL = 0.02


def say(title: str, record: dict) -> None:
    print(f"{title}: " + ", ".join(f"{k} {v}" for k, v in record.items()), flush=True)
    print(json.dumps({"check": title.split(" ")[0], **record}), flush=True)


def without(record: dict, *keys) -> dict:
    return {k: v for k, v in record.items() if k not in keys}


def load_sentences(data: str | None):
    """Per style, token lists: Shen's Yelp dev files in `data` when given, else the demo corpus."""
    if data:
        return [
            [s for s in read_sentences(Path(data) / f"sentiment.dev.{t}") if len(s) <= 15] for t in (0, 1)
        ]
    from tst.data.demo import generate_demo

    demo = generate_demo()
    return [[s.split() for s in demo["sentences"][t]] for t in (0, 1)]


def one_length(ids, batch: int, n: int):
    """n batches per style of the commonest sentence length, cycling through its sentences."""
    length = Counter(len(s) for t in (0, 1) for s in ids[t]).most_common(1)[0][0]
    pools = [[s for s in ids[t] if len(s) == length] for t in (0, 1)]
    out = []
    for k in range(n):
        out.append([[pools[t][(k * batch + i) % len(pools[t])] for i in range(batch)] for t in (0, 1)])
    return length, out


PATHS = ("plain", "fast", "graphed")


class Run:
    """One model + its optimizers on the plain path, the fast path or the graphed step (CUDA only), from seed 0."""

    def __init__(self, variant, cfg, vocab, device, path: str, precision: str, compile_setting="auto"):
        self.lam = resolve(VARIANTS[variant])
        self.cfg, self.device, self.amp = cfg, device, precision == "bf16"
        self.graphed = None
        torch.manual_seed(0)
        self.model = build_model(cfg, len(vocab), self.lam).to(device)
        if path == "graphed":
            self.opt = make_optimizers(self.model, cfg, device, graphed=True)
        elif path == "fast":
            self.opt = make_optimizers(self.model, cfg, device)
            if compiles(compile_setting):
                compile_soft_decode(self.model)
        else:
            self.opt = [
                Adam(ps, lr=cfg["lr"], betas=tuple(cfg["betas"]))
                for ps in (self.model.generator_parameters(), self.model.discriminator_parameters())
            ]
        torch.manual_seed(1)
        self.lms = [GRULanguageModel(len(vocab), 128, 256).to(device).eval() for _ in (0, 1)]
        self.rng = torch.get_rng_state(), (torch.cuda.get_rng_state() if device.type == "cuda" else None)

    def step(self, k: int, b, para) -> dict:
        torch.set_rng_state(self.rng[0])  # each run draws its own stream: the same draws on both paths
        if self.rng[1] is not None:
            torch.cuda.set_rng_state(self.rng[1])
        # TF32 belongs to the fast path only: the plain path is strict fp32 (the flags are process-wide)
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = self.tf32
        if self.path == "graphed":
            if self.graphed is None:
                self.graphed = GraphedStep(
                    self.model, *self.opt, self.lam, self.cfg, self.device, self.amp, para, self.lms
                )
            terms = self.graphed(b[0], b[1], 0, k + 1, 0)
            self.rng = torch.get_rng_state(), torch.cuda.get_rng_state()
            return terms
        terms = train_step(
            self.model,
            *self.opt,
            b[0],
            b[1],
            self.lam,
            self.cfg,
            0,
            k + 1,
            0,
            para,
            self.lms,
            self.device,
            self.amp,
        )
        self.rng = torch.get_rng_state(), (torch.cuda.get_rng_state() if self.device.type == "cuda" else None)
        return terms


def make_run(variant, cfg, vocab, device, path, precision, compile_setting="auto") -> Run:
    """path: plain, fast or graphed (a bool: fast or plain)."""
    path = {True: "fast", False: "plain"}.get(path, path)
    r = Run(variant, cfg, vocab, device, path, precision, compile_setting)
    r.path = path
    r.tf32 = path != "plain" and device.type == "cuda" and precision == "fp32"
    return r


def paths(device) -> list:
    """The paths measured on `device`: the graphed step needs CUDA."""
    return list(PATHS) if device.type == "cuda" else ["plain", "fast"]


def step_times(args, device, cfg, vocab, ids, para) -> None:
    length, batches = one_length(ids, cfg["batch_size"], args.steps + 3)
    for variant in args.variants:
        for precision in args.precision:
            runs = {
                path: make_run(variant, cfg, vocab, device, path, precision, args.compile)
                for path in paths(device)
            }
            times = {path: [] for path in runs}
            for k, b in enumerate(batches):  # interleaved, paired; the first 3 warm up (and compile)
                for path, r in runs.items():
                    sync(device)
                    t0 = time.perf_counter()
                    r.step(k, b, para)
                    sync(device)
                    if k >= 3:
                        times[path].append(time.perf_counter() - t0)
            rec = {"variant": variant, "precision": precision, "length": length, "batch": cfg["batch_size"]}
            for path, ts in times.items():
                ms = 1000 * float(np.median(ts))
                rec[f"{path}_ms_per_step"] = round(ms, 2)
                rec[f"{path}_epoch_min"] = round(ms * YELP_STEPS / 60_000, 2)
            rec["speedup"] = round(rec["plain_ms_per_step"] / rec["fast_ms_per_step"], 2)
            if "graphed" in runs:
                rec["graphed_speedup"] = round(rec["plain_ms_per_step"] / rec["graphed_ms_per_step"], 2)
                rec["graphed_vs_fast"] = round(rec["fast_ms_per_step"] / rec["graphed_ms_per_step"], 2)
                rec["graphs"] = len(runs["graphed"].graphed.graphs)
            else:
                rec["graphed_ms_per_step"] = "needs CUDA"
            say(f"step {variant} {precision}", rec)


def compare_losses(args, device, cfg, vocab, ids, para) -> bool:
    _, batches = one_length(ids, cfg["batch_size"], args.compare_steps)
    runs = {path: make_run("M2", cfg, vocab, device, path, "fp32", args.compile) for path in paths(device)}
    losses = {path: [] for path in runs}
    for k, b in enumerate(batches):
        for path, r in runs.items():
            losses[path].append(r.step(k, b, para))
    ok = True
    for other in [p for p in runs if p != "plain"]:
        rec = {"steps": len(batches), "variant": "M2"}
        within = True
        for term in ("rec", "cyc", "d0", "total"):
            a = np.array([t[term] for t in losses["plain"]])
            f = np.array([t[term] for t in losses[other]])
            tail = min(50, len(a))
            ma, mf = float(a[-tail:].mean()), float(f[-tail:].mean())
            rel = abs(mf - ma) / max(abs(ma), 1e-6)
            within &= bool(np.isfinite(f).all()) and rel <= MEAN_RTOL
            rec[term] = (
                f"plain {ma:.4f} {other} {mf:.4f} (last {tail}; rel {rel:.1e}; step 1 {a[0]:.6f} / {f[0]:.6f})"
            )
        rec["within"] = f"{MEAN_RTOL:g}: {'PASS' if within else 'FAIL'}"
        say(f"losses fp32 plain vs {other} path", rec)
        ok &= within
    if "graphed" not in runs:
        say("losses fp32 plain vs graphed path", {"graphed": "needs CUDA"})
    return ok


def concurrency(args, device, cfg, vocab, ids, para, info) -> bool:
    """The concurrent trainings' rates (bench/gpu_share.py), without and (--mps auto, on CUDA) with MPS: the
    table, one JSON line each and the --rates file. False when a measurement without MPS failed."""
    from gpu_share import Pool, start_mps, stop_mps, table

    length, batches = one_length(ids, cfg["batch_size"], 8)
    threads = args.threads or (1 if device.type == "cpu" else 0)
    modes = [(False, None)]
    mps_note = "off"
    if device.type == "cuda" and args.mps == "auto":
        env, why = start_mps()
        mps_note = "started" if env else f"not started: {why}"
        if env:
            modes.append((True, env))
    say("mps", {"state": mps_note})
    records = []
    try:
        for mps, env in modes:
            with Pool(max(args.concurrency), str(device), threads, env) as pool:
                for variant, jobs in [(v, k) for v in args.variants for k in args.concurrency]:
                    rec = {
                        "mps": mps,
                        **pool.measure(variant, jobs, args.concurrent_steps, cfg, vocab, batches, para),
                    }
                    records.append(rec)
                    # the variant's settings are in the rates file; the line keeps the rates
                    say(f"concurrent {variant} x{jobs}{' MPS' if mps else ''}", without(rec, "settings"))
                    if mps and "error" in rec:  # MPS is an extra: its first failure ends its measurements
                        mps_note = f"started, failed: {rec['error']}"
                        break
    finally:
        if len(modes) > 1:
            stop_mps(modes[1][1])
    print("\n".join(table(records)), flush=True)
    out = {
        "device": info,
        "dims": args.dims,
        "batch": cfg["batch_size"],
        "length": length,
        "threads_per_training": threads,
        "sizes": {k: cfg[k] for k in SIZE_KEYS},
        "mps": mps_note,
        "rows": records,
    }
    Path(args.rates).parent.mkdir(parents=True, exist_ok=True)
    Path(args.rates).write_text(json.dumps(out, indent=1) + "\n")
    print(f"rates written to {args.rates} (read by: tst cost --rates {args.rates})", flush=True)
    return not any("error" in r for r in records if not r["mps"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=None, help="default: CUDA when present (a free GPU), else CPU")
    ap.add_argument(
        "--data", default=None, help="a folder with Shen's sentiment.dev.{0,1}; default: the demo corpus"
    )
    ap.add_argument("--dims", default="paper", choices=["paper", "demo"])
    ap.add_argument("--steps", type=int, default=20, help="timed steps per variant, precision and path")
    ap.add_argument("--compare-steps", type=int, default=200)
    ap.add_argument("--variants", nargs="+", default=["M0", "M2", "M7"], choices=sorted(VARIANTS))
    ap.add_argument("--precision", nargs="+", default=["fp32", "bf16"], choices=["fp32", "bf16"])
    ap.add_argument("--eval-repeats", type=int, default=20, help="bench/bench_evaluators.py --repeats")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads of torch (default: torch's)")
    ap.add_argument(
        "--compile",
        default="auto",
        choices=["auto", "true"],
        help="the fast path's transfer.compile (auto: the plain soft decoding, as training; true: compiled, inductor)",
    )
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4, 8], help="trainings at once")
    ap.add_argument(
        "--concurrent-steps", type=int, default=20, help="timed steps of each concurrent training"
    )
    ap.add_argument("--mps", default="auto", choices=["auto", "off"], help="auto: also with CUDA MPS on CUDA")
    ap.add_argument("--rates", default=GPU_RATES, help="where the rates' JSON goes (default: %(default)s)")
    ap.add_argument(
        "--only-concurrency",
        action="store_true",
        help="measure the concurrent trainings only (no step times)",
    )
    args = ap.parse_args()
    args.compile = {"true": True}.get(args.compile, args.compile)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    info = {"torch": torch.__version__, "device": str(device)}
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        info.update(
            cuda=torch.version.cuda,
            gpu=p.name,
            gpus=torch.cuda.device_count(),
            memory_gib=round(p.total_memory / 2**30, 1),
            capability=f"{p.major}.{p.minor}",
            tf32=p.major >= 8,
        )
    else:
        info["threads"] = torch.get_num_threads()
    say("device", info)
    sents = load_sentences(args.data)
    vocab = Vocab.build(sents[0] + sents[1], min_count=5 if args.data else 1)
    cfg = settings(args.dims)
    ids = [[vocab.encode(s) for s in sents[t]] for t in (0, 1)]
    para = [[(ids[t][i], ids[t][i + 1]) for i in range(0, min(2000, len(ids[t]) - 1), 2)] for t in (0, 1)]
    say(
        "data",
        {"source": args.data or "demo corpus", "sentences": [len(s) for s in ids], "vocab": len(vocab)},
    )
    if args.only_concurrency:
        sys.exit(0 if concurrency(args, device, cfg, vocab, ids, para, info) else 1)
    step_times(args, device, cfg, vocab, ids, para)
    allow_tf32(device)
    bench = Path(__file__).with_name("bench_evaluators.py")
    out = subprocess.run(
        [
            sys.executable,
            str(bench),
            "--device",
            str(device),
            "--batch",
            "256",
            "--repeats",
            str(args.eval_repeats),
        ]
        + ["--precision", *args.precision],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        r = json.loads(line)
        keep = ("model", "precision", "train_per_s", "infer_per_s", "unit", "batch", "len")
        say(f"evaluator {r['model']} {r['precision']}", {k: r[k] for k in keep})
    ok = compare_losses(args, device, cfg, vocab, ids, para)
    ok &= concurrency(args, device, cfg, vocab, ids, para, info)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
