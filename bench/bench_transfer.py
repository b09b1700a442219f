"""Training speed of the cross-aligned model (Pang & Gimpel M0 and M7) at paper dimensions.

python bench/bench_transfer.py [--device cpu|cuda] [--steps 3] [--variants M0 M7] [--data DIR]
                               [--precision fp32 bf16] [--dims paper|demo] [--seed 0] [--compile auto|true|false]
Reports, per precision (fp32, or torch.autocast bfloat16 as the trainer's `precision: bf16`), tokens/s (both styles' target tokens incl. <eos> per second) and, for a Shen-size Yelp epoch
(447K sentences; 268K positive -> ceil(268K / 64) = 4,184 steps), the extrapolated time per epoch.
Real sentences come from ../shared/data/yelp/shen (or --data); random LMs stand in for the frozen ones of M7
(same shapes and cost as tst.models.gru_lm.GRULanguageModel defaults). --dims paper: the settings of
configs/paper_dimensions.yaml over config.yaml's (tst.defaults.paper_transfer); demo: config.yaml's. Also
reports the mean rec and total loss over the timed steps, to compare the trajectories of the two precisions
from the same initialization (and, with --seed, their spread over initializations). The optimizers and the
compiled soft decoding are the trainer's (tst.train.trainer.make_optimizers, transfer.compile).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from timing import sync  # bench/timing.py (scripts run as python bench/<name>.py)

from tst.defaults import default, paper_transfer
from tst.device import allow_tf32
from tst.io import read_sentences
from tst.models.gru_lm import GRULanguageModel
from tst.models.registry import build_model
from tst.stages import transfer_settings
from tst.train.batching import epoch_plan
from tst.train.step import train_step
from tst.train.trainer import compile_soft_decode, compiles, make_optimizers, with_defaults
from tst.variants import resolve
from tst.vocab import Vocab

VARIANTS = {
    "M0": {},
    "M2": {"lambda_cyc": 5},
    "M7": {"lambda_cyc": 5, "lambda_para": 0.2, "lambda_lm": 1e-3, "lambda_adv2": 1},
}
YELP_STEPS = -(-268_000 // 64)


def settings(dims: str) -> dict:
    """The training settings of --dims: paper = configs/paper_dimensions.yaml's over config.yaml's, demo =
    config.yaml's."""
    block = paper_transfer() if dims == "paper" else default("transfer")
    return with_defaults(transfer_settings({"transfer": block}))


def bench(
    variant: str,
    device: torch.device,
    steps: int,
    sents,
    vocab,
    cfg: dict,
    precisions=("fp32",),
    seed: int = 0,
) -> list[dict]:
    """One model per precision from the same initialization, their steps interleaved on the same batches
    (fp32 step k, bf16 step k, ...): paired timings that share whatever else loads the machine."""
    lam = resolve(VARIANTS[variant])
    if "fp32" in precisions:
        allow_tf32(device)  # as the trainer's fp32 on CUDA
    runs = []
    for precision in precisions:
        torch.manual_seed(seed)
        model = build_model(cfg, len(vocab), lam).to(device)
        opt_g, opt_d = make_optimizers(model, cfg, device)  # the trainer's: fused Adam on CUDA
        if compiles(cfg["compile"]):  # transfer.compile: true compiles the soft decoding
            compile_soft_decode(model)
        runs.append(
            {
                "precision": precision,
                "model": model,
                "opt": (opt_g, opt_d),
                "times": [],
                "rec": [],
                "total": [],
                "rng": torch.get_rng_state(),
            }
        )
    lms = [GRULanguageModel(len(vocab), 128, 256).to(device).eval() for _ in (0, 1)]
    ids = [[vocab.encode(s) for s in sents[t]] for t in (0, 1)]
    para = [[(ids[t][i], ids[t][i + 1]) for i in range(0, 2000, 2)] for t in (0, 1)]
    plan = epoch_plan([len(s) for s in ids[0]], [len(s) for s in ids[1]], cfg["batch_size"], 0, 0)
    tokens = []
    for k in range(steps + 2):  # 2 warm-up steps
        i0, i1 = plan[k]
        b0, b1 = [ids[0][i] for i in i0], [ids[1][i] for i in i1]
        for r in runs:
            torch.set_rng_state(r["rng"])  # each run draws its own dropout / Gumbel noise stream
            sync(device)
            t0 = time.perf_counter()
            terms = train_step(
                r["model"],
                *r["opt"],
                b0,
                b1,
                lam,
                cfg,
                0,
                k + 1,
                0,
                para,
                lms,
                device,
                r["precision"] == "bf16",
            )
            sync(device)
            r["rng"] = torch.get_rng_state()
            if k >= 2:
                r["times"].append(time.perf_counter() - t0)
                r["rec"].append(terms["rec"])
                r["total"].append(terms["total"])
        if k >= 2:
            tokens.append(sum(len(s) + 1 for s in b0 + b1))
    out = []
    for r in runs:
        sec = float(np.sum(r["times"]))
        out.append(
            {
                "variant": variant,
                "precision": r["precision"],
                "seed": seed,
                "device": str(device),
                "steps": steps,
                "sec_per_step": sec / steps,
                "median_sec_per_step": float(np.median(r["times"])),
                "rec_last": r["rec"][-1],
                "mean_rec": float(np.mean(r["rec"])),
                "mean_total": float(np.mean(r["total"])),
                "tokens_per_s": float(np.sum(tokens)) / sec,
                "yelp_epoch_min_est": sec / steps * YELP_STEPS / 60,
                "vocab": len(vocab),
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--variants", nargs="+", default=["M0", "M7"])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/data/yelp/shen"))
    ap.add_argument("--demo-corpus", action="store_true", help="tst.data.demo's corpus (config.yaml) instead")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--precision", nargs="+", default=["fp32", "bf16"], choices=["fp32", "bf16"])
    ap.add_argument("--dims", default="paper", choices=["paper", "demo"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--compile",
        default=None,
        choices=["auto", "true", "false"],
        help="transfer.compile (default: the config's)",
    )
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.demo_corpus:
        from tst.data.demo import generate_demo

        sents = [[s.split() for s in generate_demo()["sentences"][t]] for t in (0, 1)]
        vocab = Vocab.build(sents[0] + sents[1])
    else:
        sents = [
            [s for s in read_sentences(f"{args.data}/sentiment.dev.{t}") if len(s) <= 15] for t in (0, 1)
        ]
        vocab = Vocab.build(sents[0] + sents[1], min_count=5)  # about Shen et al.'s Yelp vocabulary size
    cfg = settings(args.dims)
    if args.compile is not None:
        cfg["compile"] = {"true": True, "false": False}.get(args.compile, args.compile)
    for v in args.variants:
        for out in bench(
            v, torch.device(args.device), args.steps, sents, vocab, cfg, args.precision, args.seed
        ):
            print(json.dumps({"dims": args.dims, **out}), flush=True)


if __name__ == "__main__":
    main()
