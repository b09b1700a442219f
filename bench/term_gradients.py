"""Which loss term drives the encoder/generator update: the gradient 2-norm over E and G of each weighted term
of L_total (Pang & Gimpel §4.6) at a saved checkpoint, averaged over a few training batches.

python bench/term_gradients.py CHECKPOINT DATA_DIR [--batches 4] [--seed 1] [--init]
DATA_DIR: the prepared data of the run (results/<dataset>/data: train.{0,1}.txt). --init: the checkpoint's
settings and variant with freshly initialised weights (the state before the first update).
Each term is isolated by calling the trainer's own train_step with only that term's lambda on (lambda_rec too
is 0 for the others), no gradient clipping, the warm-up factor 1, and optimizers that record the gradient
norm and change nothing; every term sees the same batches and the same Gumbel noise. Printed per term:
lambda x ||grad||, i.e. its pull on the update at full weight. Deterministic for a given checkpoint and seed.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import torch

from tst.io import read_sentences
from tst.models.registry import build_model
from tst.train.batching import epoch_plan
from tst.train.checkpoint import load, model_from_checkpoint, variant_of
from tst.train.trainer import train_step, with_defaults


class Recorder:
    """An optimizer stand-in: zero_grad clears, step records the global gradient 2-norm and updates nothing."""

    def __init__(self, params):
        self.param_groups = [{"params": [p for p in params if p.requires_grad]}]
        self.norms = []

    def zero_grad(self, set_to_none=True):
        for p in self.param_groups[0]["params"]:
            p.grad = None

    def step(self):
        sq = sum(
            float(p.grad.float().pow(2).sum()) for p in self.param_groups[0]["params"] if p.grad is not None
        )
        self.norms.append(math.sqrt(sq))


def term_gradients(model, lam: dict, cfg: dict, batches, epoch: int, seed: int) -> dict:
    """{term: mean over batches of ||grad of lambda_term * L_term|| over E and G} for every term the variant
    has on (rec, adv, adv2, cyc)."""
    gen, disc = model.generator_parameters(), model.discriminator_parameters()
    off = {k: 0.0 for k in lam if k.startswith("lambda_")}
    out = {}
    for term in ("rec", "adv", "adv2", "cyc"):
        if lam[f"lambda_{term}"] == 0:
            continue
        only = {**lam, **off, f"lambda_{term}": lam[f"lambda_{term}"]}
        opt_g, opt_d = Recorder(gen), Recorder(disc)
        for i, (b0, b1) in enumerate(batches):
            torch.manual_seed(seed + i)
            train_step(model, opt_g, opt_d, b0, b1, only, {**cfg, "grad_clip": None}, epoch, i + 1, seed)
        out[term] = sum(opt_g.norms) / len(opt_g.norms)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkpoint")
    ap.add_argument("data_dir")
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    ck = load(args.checkpoint)
    model, vocab = model_from_checkpoint(ck)
    lam, cfg = variant_of(ck), with_defaults(ck["config"])
    if args.init:
        torch.manual_seed(args.seed)
        model = build_model(ck["config"], len(vocab), lam)
    ids = [[vocab.encode(s) for s in read_sentences(Path(args.data_dir) / f"train.{t}.txt")] for t in (0, 1)]
    plan = epoch_plan([len(s) for s in ids[0]], [len(s) for s in ids[1]], cfg["batch_size"], args.seed, 0)
    batches = [([ids[0][i] for i in i0], [ids[1][i] for i in i1]) for i0, i1 in plan[: args.batches]]
    epoch = (
        0 if args.init else int(ck["epoch"] - 1e-9)
    )  # the epoch the next update belongs to (lambda_6 decay)
    norms = term_gradients(model, lam, cfg, batches, epoch, args.seed)
    print(
        json.dumps(
            {
                "checkpoint": args.checkpoint,
                "init": args.init,
                "epoch": epoch,
                "grad_norm": {k: round(v, 3) for k, v in norms.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
