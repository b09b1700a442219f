"""Adversarial naturalness classifier for one system (Mir et al. 2019): human text of the target style vs
the system's outputs. Output files are aligned with sources of style s, so their target style is 1 - s.

python scripts/train_naturalness.py --kind lr --human t.0.txt t.1.txt --outputs o.0.txt o.1.txt --out x.lr.json
(--human lists the style-0 and style-1 human corpora; --outputs the system outputs from source style 0, 1)
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
import torch

from tst.evaluators.naturalness import (
    cross_fit_folds,
    save_naturalness,
    train_naturalness_cnn,
    train_naturalness_lr,
)
from tst.io import read_lines, read_sentences


def outputs_of(path: str) -> list[list[str]]:
    """System output file: plain tokenized lines, or Li et al.'s `source<TAB>output<TAB>label` lines."""
    return [(line.split("\t")[1] if "\t" in line else line).split() for line in read_lines(path)]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kind", choices=["lr", "nn"], required=True, help="lr: unigram LR; nn: Kim CNN")
    ap.add_argument("--human", nargs=2, required=True)
    ap.add_argument("--outputs", nargs=2, required=True)
    ap.add_argument("--config", default="{}", help="JSON: lr: C, min_count; cnn: model/training settings; "
                    "both: dev_fraction, seed, max_human")
    ap.add_argument("--cross-fit", action="store_true",
                    help="train one classifier per half of the outputs; each output is scored by the classifier "
                    "that did not see it (for outputs that are also the ones scored, e.g. external systems)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if not args.out.endswith(".json" if args.kind == "lr" else ".pt"):
        ap.error("--out must end in .json for --kind lr and .pt for --kind nn (load_naturalness reads the suffix)")
    if args.threads:
        torch.set_num_threads(args.threads)
    cfg = json.loads(args.config)
    seed = cfg.get("seed", 1)
    rng = np.random.default_rng(seed)
    human, generated = [], []
    for src_style in (0, 1):
        out = outputs_of(args.outputs[src_style])
        generated += out
        pool = read_sentences(args.human[1 - src_style])  # human text of the target style
        n = min(len(pool), max(len(out), cfg.get("max_human") or len(out)))
        human += [pool[i] for i in sorted(rng.choice(len(pool), n, replace=False))]
    dev_fraction = cfg.get("dev_fraction", 0.1)

    def train(generated_part):
        if args.kind == "lr":
            model = train_naturalness_lr(human, generated_part, C=cfg.get("C", 1.0), dev_fraction=dev_fraction,
                                         seed=seed, min_count=cfg.get("min_count", 1))
            return model, model.metrics
        model_keys = ("emb_dim", "widths", "n_filters", "dropout")
        model = train_naturalness_cnn(human, generated_part, {k: v for k, v in cfg.items() if k in model_keys},
                                      {k: v for k, v in cfg.items() if k not in model_keys
                                       and k not in ("dev_fraction", "max_human", "min_count")},
                                      dev_fraction, cfg.get("min_count", 1),
                                      log=lambda m: print(m, file=sys.stderr, flush=True))
        return model, {k: v for k, v in model["metrics"].items() if k != "epochs"}

    if args.cross_fit:  # the scored outputs are the trained-on outputs: each fold judges the others' lines
        folds = cross_fit_folds(generated)
        trained = [train(fold) for fold in folds]
        model, metrics = [m for m, _ in trained], {"folds": [m for _, m in trained]}
        save_naturalness(model, args.out, seen=[[" ".join(s) for s in fold] for fold in folds])
        print(json.dumps(metrics))
        return
    model, metrics = train(generated)
    save_naturalness(model, args.out)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
