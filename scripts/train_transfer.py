"""Train one transfer model (a variant of Pang & Gimpel's Table 2, or Fu et al.'s) for one seed.

python scripts/train_transfer.py --train train.0.txt train.1.txt --dev dev.0.txt dev.1.txt --vocab vocab.txt \
    --config '{"epochs": 2, ...}' --variant '{"lambda_cyc": 5}' --seed 1 --out results/demo/models/M2/seed1 \
    [--paraphrase paraphrase.0.tsv paraphrase.1.tsv] [--lm lm_style0.pt lm_style1.pt] \
    [--dev-entities dev.0.entities.jsonl dev.1.entities.jsonl] [--attributes train.0.attributes.jsonl ...1]
Rerun after a kill: resumes from the last half-epoch checkpoint in --out.
"""

from __future__ import annotations

import argparse
import json
import sys

import torch

from tst.io import read_jsonl, read_sentences, write_json
from tst.train.paraphrase import load_paraphrases
from tst.train.trainer import train
from tst.vocab import Vocab


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs=2, required=True)
    ap.add_argument("--dev", nargs=2, required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--min-count", type=int, default=1, help="the dataset's vocab.min_count")
    ap.add_argument("--config", default="{}", help="JSON: the config section `transfer` without `variants`")
    ap.add_argument("--variant", default="{}", help="JSON: the variant's lambdas")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--paraphrase", nargs=2, default=None)
    ap.add_argument("--lm", nargs=2, default=None, help="frozen LMs of style 0 and 1 (eq. 6)")
    ap.add_argument("--dev-entities", nargs=2, default=None)
    ap.add_argument("--attributes", nargs=2, default=None, help="train.{0,1}.attributes.jsonl (lambda_attr)")
    ap.add_argument("--device", default=None, help="cpu | cuda (default: cuda when present)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    cfg, variant = json.loads(args.config), json.loads(args.variant)
    vocab = Vocab.load(args.vocab, args.min_count, cfg.get("max_vocab"))
    train_sents = [read_sentences(p) for p in args.train]
    dev_sents = [read_sentences(p) for p in args.dev]
    para = None
    if variant.get("lambda_para", 0) > 0:
        if not args.paraphrase:
            sys.exit("lambda_para > 0 needs --paraphrase")
        para = [load_paraphrases(p, cfg.get("paraphrase_pairs"), args.seed) for p in args.paraphrase]
    lms = None
    if variant.get("lambda_lm", 0) > 0:
        if not args.lm:
            sys.exit("lambda_lm > 0 needs --lm")
        from tst.evaluators.language_model import load_lm
        loaded = [load_lm(p) for p in args.lm]
        for p, lm in zip(args.lm, loaded):
            if list(lm.vocab.itos) != vocab.itos:
                sys.exit(f"{p}: its vocabulary differs from {args.vocab} (min_count {args.min_count})")
        lms = [lm.model for lm in loaded]
    entities = [read_jsonl(p) for p in args.dev_entities] if args.dev_entities else None
    attributes = None
    if variant.get("lambda_attr", 0) > 0:
        if not args.attributes:
            sys.exit("lambda_attr > 0 needs --attributes")
        from tst.nlp.attributes import load_attribute_lists
        attributes = [load_attribute_lists(p, surface=True) for p in args.attributes]
    train(cfg, variant, vocab, train_sents, dev_sents, args.out, args.seed, paraphrase=para, lms=lms,
          dev_entities=entities, device=args.device, progress=True, attributes=attributes)
    write_json(f"{args.out}/train.done.json", {"config": cfg, "variant": variant, "seed": args.seed})


if __name__ == "__main__":
    main()
