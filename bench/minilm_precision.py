"""The MiniLM's inference in fp32 and in bf16 autocast (evaluators.precision at scoring; issue 28): the seconds of
sbert and of the minilm acceptability classifier over every system of a scored dataset, and how far each
system's corpus score and its single sentences move.

python bench/minilm_precision.py RESULTS [--split test] [--threads 1]
RESULTS: a dataset's results folder after a workflow run (results/yelp: systems/<name>/<split>.final.{0,1}.txt with
their sources, evaluators/acceptability.pt). Each precision starts from empty caches; a text is encoded once per
precision, as in a score job. Prints a Markdown table. The figures of config.yaml's comment: the 2-core Xeon with
AMX, idle, 1 thread, Yelp's 20 systems (docs/evaluator_speed.md).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from tst.evaluators.acceptability import load_acceptability
from tst.io import read_lines
from tst.metrics import sbert


def systems(results: Path, split: str) -> dict[str, tuple[list[str], list[str]]]:
    out = {}
    for folder in sorted(p for p in (results / "systems").iterdir() if p.is_dir()):
        files = [folder / f"{split}.final.{s}.txt" for s in (0, 1)]
        if all(f.exists() for f in files):
            src = [x for s in (0, 1) for x in read_lines(folder / f"{split}.final.sources.{s}.txt")]
            out[folder.name] = (src, [x for f in files for x in read_lines(f)])
    return out


def run(data, model, acc, bf16: bool):
    """Per system: per-pair sbert cosines and per-output P(real) (non-empty outputs); seconds of each metric."""
    sbert._CACHE.clear()
    for seen in acc.classifier.seen.values():
        seen.clear()
    res, t_sbert, t_acc = {}, 0.0, 0.0
    for name, (src, out) in data.items():
        t = time.perf_counter()
        e = sbert.embed(src + out, model, bf16=bf16)
        t_sbert += time.perf_counter() - t
        cos = (e[: len(src)] * e[len(src) :]).sum(1)
        t = time.perf_counter()
        kept = [o.split() for o in out if o.split()]
        p = acc.p_real(kept, bf16=bf16) if kept else np.zeros(0)
        t_acc += time.perf_counter() - t
        res[name] = (cos, p)
    return res, t_sbert, t_acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path)
    ap.add_argument("--split", default="test")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    data = systems(args.results, args.split)
    model = sbert.load_model()
    acc = load_acceptability(args.results / "evaluators" / "acceptability.pt", torch.device("cpu"))
    n = sum(len(o) for _, o in data.values())
    fp32, s32, a32 = run(data, model, acc, False)
    bf16, s16, a16 = run(data, model, acc, True)
    print(f"{len(data)} systems, {n} outputs, {args.threads} thread(s)\n")
    print("| | fp32 s | bf16 s | speed-up |\n|---|---:|---:|---:|")
    print(f"| sbert | {s32:.1f} | {s16:.1f} | {s32 / s16:.2f}x |")
    print(f"| acceptability | {a32:.1f} | {a16:.1f} | {a32 / a16:.2f}x |\n")
    print(
        "| system | sbert fp32 | bf16 - fp32 | max per pair | acceptability fp32 | bf16 - fp32 | max per output |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    worst = [0.0, 0.0, 0.0, 0.0]
    for name in data:
        (c32, p32), (c16, p16) = fp32[name], bf16[name]
        d = [c16.mean() - c32.mean(), np.abs(c16 - c32).max()]
        d += [p16.mean() - p32.mean(), np.abs(p16 - p32).max()] if len(p32) else [0.0, 0.0]
        worst = [max(w, abs(x)) for w, x in zip(worst, d)]
        acc32 = f"{p32.mean():.5f}" if len(p32) else "-"
        print(
            f"| {name} | {c32.mean():.5f} | {d[0]:+.6f} | {d[1]:.5f} | {acc32} | {d[2]:+.6f} | {d[3]:.5f} |"
        )
    print(f"| **largest** | | {worst[0]:.6f} | {worst[1]:.5f} | | {worst[2]:.6f} | {worst[3]:.5f} |")


if __name__ == "__main__":
    main()
