"""An evaluator trained in fp32 or under bf16 autocast: its dev score per epoch and wall time, to check that
`evaluators.precision` bf16 gives the same model within seed noise.

python bench/evaluator_precision.py DATA_DIR --kind lm|cnn|lstm --precision fp32|bf16 [--seed 1] [--threads 1]
DATA_DIR: a prepared data folder (results/<dataset>/data: train.{0,1}.txt, dev.{0,1}.txt, vocab.txt). lm is the
joint language model (dev perplexity, PP's evaluator), cnn the style classifier (dev accuracy, Acc's), lstm
Fu et al.'s classifier (transfer strength's). Settings are config.yaml's evaluators.<kind> (the workflow's;
--seed replaces its seed). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
import yaml

from tst.evaluators import classifiers, language_model
from tst.io import read_sentences
from tst.vocab import Vocab

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("data")
    ap.add_argument("--kind", required=True, choices=["lm", "cnn", "lstm"])
    ap.add_argument("--precision", required=True, choices=["fp32", "bf16"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cfg = {
        **yaml.safe_load((ROOT / "config.yaml").read_text())["evaluators"][args.kind],
        "seed": args.seed,
        "precision": args.precision,
        "device": "cpu",
    }
    train = [read_sentences(f"{args.data}/train.{t}.txt") for t in (0, 1)]
    dev = [read_sentences(f"{args.data}/dev.{t}.txt") for t in (0, 1)]
    vocab = Vocab.load(f"{args.data}/vocab.txt", cfg.get("min_count", 1))
    t0 = time.perf_counter()
    if args.kind == "lm":
        ckpt = language_model.train_lm(
            train[0] + train[1],
            dev[0] + dev[1],
            vocab,
            *language_model.lm_settings(cfg, False),
            log=lambda *a: None,
        )
        score = "dev_perplexity"
    else:
        kind = classifiers.KIND_ALIASES[args.kind]
        keys = classifiers.MODEL_KEYS[kind]
        ckpt = classifiers.train_classifier(
            train[0] + train[1],
            [0] * len(train[0]) + [1] * len(train[1]),
            dev[0] + dev[1],
            [0] * len(dev[0]) + [1] * len(dev[1]),
            vocab,
            kind,
            {k: v for k, v in cfg.items() if k in keys},
            {k: v for k, v in cfg.items() if k not in keys},
            log=lambda *a: None,
        )
        score = "dev_accuracy"
    m = ckpt["metrics"]
    print(
        json.dumps(
            {
                "data": args.data,
                "kind": args.kind,
                "precision": m["precision"],
                "seed": args.seed,
                "n_train": m["n_train"],
                "vocab": len(vocab),
                "wall_s": round(time.perf_counter() - t0, 1),
                "dev_by_epoch": [round(e["dev"], 4) for e in m["epochs"]],
                score: round(m[score], 4),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
