"""Train a GRU language model (joint: both style files; per style: one file) and save its checkpoint.

python scripts/train_lm.py --train t.0.txt t.1.txt --dev d.0.txt d.1.txt --vocab vocab.txt --out lm.pt
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from tst.evaluators.content_mask import mask_content_words
from tst.evaluators.language_model import MODEL_KEYS, train_lm
from tst.io import read_json, read_sentences
from tst.vocab import Vocab


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", nargs="+", required=True, help="train files (both styles = joint LM)")
    ap.add_argument("--dev", nargs="+", required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--config", default="{}", help="JSON: model + training settings")
    ap.add_argument("--content-words", default=None, help="JSON list of words to mask (optional)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    cfg = json.loads(args.config)
    train = [s for p in args.train for s in read_sentences(p)]
    dev = [s for p in args.dev for s in read_sentences(p)]
    if args.content_words:
        words = read_json(args.content_words)["words"]
        train, dev = mask_content_words(train, words), mask_content_words(dev, words)
    vocab = Vocab.load(args.vocab, cfg.get("min_count", 1), cfg.get("max_vocab"))
    model_cfg = {k: v for k, v in cfg.items() if k in MODEL_KEYS}
    train_cfg = {k: v for k, v in cfg.items() if k not in MODEL_KEYS}
    ckpt = train_lm(train, dev, vocab, model_cfg, train_cfg, log=lambda m: print(m, file=sys.stderr, flush=True))
    if args.content_words:  # the loaded evaluator masks the same words before scoring
        ckpt["content_words"] = sorted(set(words))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, args.out)
    print(json.dumps({k: v for k, v in ckpt["metrics"].items() if k != "epochs"}))


if __name__ == "__main__":
    main()
