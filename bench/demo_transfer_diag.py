"""Demo-data training of transfer variants in-process, with the collapse diagnostics of each half epoch.

python bench/demo_transfer_diag.py --variants M0 M2 [--epochs 5] [--set key=yaml_value ...] [--out DIR]
    [--config-files config.yaml configs/yelp.yaml configs/yelp_cpu.yaml --dataset yelp] [--stop-after N]
The corpus is tst.data.demo's (config.yaml's size and seed), split 80/10/10 with a seeded shuffle (no NER), or
with --data the workflow's prepared data (results/demo/data: train.{0,1}.txt, dev.{0,1}.txt, vocab.txt);
settings are config.yaml's `transfer:` section (or that of --config-files, merged as Snakemake merges overlays;
--dataset names the dataset whose vocabulary min_count applies) with --set overrides; --stop-after ends each
run after that many updates (checkpoints as the settings place them, transfer.checkpoints_per_epoch). Prints, per checkpoint, dev_distinct and
z_probe (recomputed from the checkpoints and dev transfers as the trainer does, so runs of older code that
wrote no such columns can be compared: train with --no-analysis, then --no-train) and two cheap proxies: Acc = a bag-of-words logistic regression trained on the training
split (the transfer counts as right when it predicts the target style), and Sim = the mean unigram F1 of
transfer and source (not Pang & Gimpel's SIM). Wall time per run on stderr."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
import yaml

from tst.config_files import merge_configs
from tst.data.demo import generate_demo
from tst.io import read_sentences
from tst.names import epoch_label
from tst.stages import transfer_settings
from tst.train.trainer import train
from tst.vocab import Vocab

ROOT = Path(__file__).resolve().parents[1]


def split(sents, seed=0):
    s = list(sents)
    random.Random(seed).shuffle(s)
    n = len(s) // 10
    return s[2 * n :], s[:n]


def bow_classifier(train_s):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = CountVectorizer(token_pattern=r"\S+", binary=True)
    X = vec.fit_transform([" ".join(s) for t in (0, 1) for s in train_s[t]])
    y = [t for t in (0, 1) for _ in train_s[t]]
    clf = LogisticRegression(max_iter=1000).fit(X, y)
    return lambda sents: clf.predict(vec.transform([" ".join(s) for s in sents]))


def unigram_f1(a, b):
    ca, cb = Counter(a), Counter(b)
    common = sum((ca & cb).values())
    return 0.0 if common == 0 else 2 * common / (len(a) + len(b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", nargs="+", default=["M0", "M2"])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--set", nargs="*", default=[])
    ap.add_argument("--out", default="/tmp/demo_transfer_diag")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-train", action="store_true")
    ap.add_argument("--data", default=None, help="a prepared data folder (results/<dataset>/data)")
    ap.add_argument("--no-analysis", action="store_true")
    ap.add_argument("--config-files", nargs="+", default=[str(ROOT / "config.yaml")])
    ap.add_argument("--dataset", default="demo")
    ap.add_argument("--stop-after", type=int, default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    config = merge_configs([yaml.safe_load(Path(f).read_text()) for f in args.config_files])
    if args.data:
        train_s = [read_sentences(f"{args.data}/train.{t}.txt") for t in (0, 1)]
        dev_s = [read_sentences(f"{args.data}/dev.{t}.txt") for t in (0, 1)]
        vocab = Vocab.load(f"{args.data}/vocab.txt", config["datasets"][args.dataset]["vocab"]["min_count"])
    else:
        src = config["datasets"]["demo"]["source"]
        demo = generate_demo(src["sentences_per_style"], src["seed"])
        parts = [split([s.split() for s in demo["sentences"][t]]) for t in (0, 1)]
        train_s, dev_s = [p[0] for p in parts], [p[1] for p in parts]
        vocab = Vocab.build(train_s[0] + train_s[1])
    settings = {**transfer_settings(config), "epochs": args.epochs}
    for kv in args.set:
        k, v = kv.split("=", 1)
        settings[k] = yaml.safe_load(v)
    settings = {k: v for k, v in settings.items() if k not in ("model",)}
    predict = bow_classifier(train_s)
    for name in args.variants:
        out = Path(args.out) / name
        if not args.no_train:
            t0 = time.perf_counter()
            train(
                settings,
                config["transfer"]["variants"][name],
                vocab,
                train_s,
                dev_s,
                out,
                args.seed,
                device="cpu",
                progress=False,
                stop_after_step=args.stop_after,
            )
            print(f"{name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        if args.no_analysis:
            continue
        from tst.train.checkpoint import checkpoints, load_for_transfer
        from tst.train.trainer import checkpoint_diagnostics

        for e, path in checkpoints(out / "checkpoints"):
            model, _ = load_for_transfer(path)
            outs = [read_sentences(out / "transfers" / f"dev.{epoch_label(e)}.{t}.txt") for t in (0, 1)]
            diag = checkpoint_diagnostics(model, vocab, dev_s, outs, settings, None)
            acc = np.mean([p == 1 - t for t in (0, 1) for p in predict(outs[t])])
            sim = np.mean([unigram_f1(o, s) for t in (0, 1) for o, s in zip(outs[t], dev_s[t])])
            print(
                json.dumps(
                    {
                        "variant": name,
                        "epoch": e,
                        "dev_distinct": round(float(diag["dev_distinct"]), 3),
                        "z_probe": round(float(diag["z_probe"]), 2),
                        "acc_bow": round(float(acc), 3),
                        "sim_unigram_f1": round(float(sim), 3),
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
