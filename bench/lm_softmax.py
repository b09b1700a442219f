"""One PP language model trained as the workflow's train_lm rule trains it, with settings changed on the command
line: dev perplexity at every dev evaluation, training tokens/s and wall time, to choose the output layer
(full or adaptive softmax, cutoffs), the epochs and the early stopping of `evaluators.lm` (issue 28).

python bench/lm_softmax.py DATA_DIR [--lm joint|style0|style1] [--set softmax=adaptive --set cutoffs=[2000,6000]
    --set max_epochs=8 --set evals_per_epoch=2 --set patience=2 ...] [--threads 1] [--out FILE.json]
    [--save CKPT.pt] [--init JOINT.pt]
DATA_DIR: a prepared data folder (results/<dataset>/data: train.{0,1}.txt, dev.{0,1}.txt, vocab.txt). Settings
are config.yaml's evaluators.lm, each --set KEY=VALUE (a YAML value) over them; min_count 1 unless set. The
joint LM reads both styles' text, style0 / style1 one style's, as the rule does. Prints one JSON line (and
writes it to --out).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import torch
import yaml

from tst.evaluators.language_model import lm_settings, train_lm
from tst.io import read_sentences
from tst.vocab import Vocab

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--lm", default="joint", choices=["joint", "style0", "style1"])
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--save", help="write the checkpoint here (as the rule would)")
    ap.add_argument("--init", help="a checkpoint to start from (a style LM warm-started from the joint LM)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cfg = {**yaml.safe_load((ROOT / "config.yaml").read_text())["evaluators"]["lm"], "device": "cpu"}
    for item in args.set:
        key, _, value = item.partition("=")
        cfg[key] = yaml.safe_load(value)
    styles = (0, 1) if args.lm == "joint" else (int(args.lm[-1]),)
    train = [s for t in styles for s in read_sentences(f"{args.data}/train.{t}.txt")]
    dev = [s for t in styles for s in read_sentences(f"{args.data}/dev.{t}.txt")]
    vocab = Vocab.load(f"{args.data}/vocab.txt", cfg.pop("min_count", 1), cfg.pop("max_vocab", None))
    evals, t0 = [], time.perf_counter()

    def log(line: str) -> None:  # fit's "epoch E: train loss L dev D (S s)"
        m = re.match(r"epoch ([0-9.]+): train loss ([0-9.]+) dev ([0-9.]+) \(([0-9.]+)s\)", line)
        if m:
            evals.append(
                {
                    "epoch": float(m[1]),
                    "dev_pp": round(float(m[3]), 3),
                    "train_s": float(m[4]),
                    "wall_s": round(time.perf_counter() - t0, 1),
                }
            )
            print(json.dumps(evals[-1]), flush=True)

    init = torch.load(args.init, map_location="cpu", weights_only=True) if args.init else None
    model_cfg, train_cfg = lm_settings(cfg, init is not None)  # a warm start trains style_epochs epochs
    ckpt = train_lm(train, dev, vocab, model_cfg, train_cfg, log=log, init=init)
    if args.save:
        torch.save(ckpt, args.save)
    m = ckpt["metrics"]
    train_s = sum(e["train_s"] for e in evals)
    epochs_done = evals[-1]["epoch"] if evals else 0
    result = {
        "data": args.data,
        "lm": args.lm,
        "settings": {k: v for k, v in cfg.items() if k != "device"},
        "model": ckpt["config"]["model"],
        "vocab": len(vocab),
        "n_train_tokens": m["n_train_tokens"],
        "precision": m["precision"],
        "threads": args.threads,
        "dev_perplexity": round(m["dev_perplexity"], 3),
        "init": args.init,
        "init_dev_perplexity": m.get("init_dev_perplexity"),
        "stopped": m["stopped"],
        "evals": evals,
        "train_tokens_per_s": round(m["n_train_tokens"] * epochs_done / train_s) if train_s else None,
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    print(json.dumps(result), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
