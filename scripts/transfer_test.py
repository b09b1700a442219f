"""Greedy test transfers of one checkpoint: --test test.0.txt test.1.txt -> --out out.0.txt out.1.txt
(the line-aligned outputs of each source style; with --entities, also *.unmasked.txt with the names back)."""

from __future__ import annotations

import argparse

import torch

from tst.device import pick_device
from tst.io import read_jsonl, read_sentences
from tst.train.trainer import model_from_checkpoint
from tst.train.transfer import transfer_sentences, write_transfers


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--test", nargs=2, required=True)
    ap.add_argument("--entities", nargs=2, default=None)
    ap.add_argument("--out", nargs=2, required=True)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--device", default=None)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    ck = torch.load(args.checkpoint, map_location=device, weights_only=True)
    model, vocab = model_from_checkpoint(ck, device)
    for t in (0, 1):
        outs = transfer_sentences(model, vocab, read_sentences(args.test[t]), t, args.batch_size, device,
                                  ck["config"]["decode_extra"])
        unmasked = args.out[t][:-len(".txt")] + ".unmasked.txt" if args.out[t].endswith(".txt") else None
        write_transfers(args.out[t], outs, read_jsonl(args.entities[t]) if args.entities else None, unmasked)


if __name__ == "__main__":
    main()
