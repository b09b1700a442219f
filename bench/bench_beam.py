"""Decode speed per beam width: a trained checkpoint transfers a test set greedily (width 1)
and by beam search; the mean sequence log-probability of the transfers shows what the wider beam buys, and
below_greedy counts the sentences whose transfer is less probable than the greedy one (beam search is not
monotone in its width; the first width given is the reference).

python bench/bench_beam.py CHECKPOINT --test results/demo/data/test.0.txt [--style 0] [--widths 1 2 4 8]
                           [--batch-size 128] [--threads 1] [--repeats 3]

Times tst.train.transfer.transfer_sentences (the test-transfer path) per width: the best of --repeats runs,
sentences/s; the log-probability is log p(output | z, target style) by teacher forcing, summed up to <eos>.
"""

from __future__ import annotations

import argparse
import json
import time

import torch
import torch.nn.functional as F

from tst.io import read_sentences
from tst.train.batching import pad_batch
from tst.train.checkpoint import load, model_from_checkpoint
from tst.train.transfer import transfer_sentences
from tst.vocab import Vocab


def logprobs(model, vocab: Vocab, sources, outputs, style: int) -> list[float]:
    """Per sentence log p(output + <eos> | E(source, style), 1 - style), by teacher forcing."""
    scores = []
    with torch.no_grad():
        for src, out in zip(sources, outputs):
            tokens, lengths, _ = pad_batch([vocab.encode(src)])
            z = model.encode(tokens, lengths, style)
            _, _, targets = pad_batch([vocab.encode(out)])
            _, logits = model.teacher_force(z, 1 - style, targets)
            scores.append(
                float(F.log_softmax(logits.float(), -1)[0].gather(1, targets[0].unsqueeze(1)).sum())
            )
    return scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--test", required=True, help="tokenized sentences of --style, one per line")
    ap.add_argument("--style", type=int, default=0)
    ap.add_argument("--widths", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    ck = load(args.checkpoint, "cpu")
    model, vocab = model_from_checkpoint(ck, "cpu")
    model.eval()
    sources = read_sentences(args.test)
    extra = ck["config"].get("decode_extra", 5)
    rows, greedy = [], None
    for width in args.widths:
        best, out = float("inf"), None
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            out = transfer_sentences(model, vocab, sources, args.style, args.batch_size, "cpu", extra, width)
            best = min(best, time.perf_counter() - t0)
        lp = logprobs(model, vocab, sources, out, args.style)
        greedy = lp if greedy is None else greedy
        rows.append(
            {
                "width": width,
                "seconds": round(best, 3),
                "sentences_per_s": round(len(sources) / best, 1),
                "mean_logprob": round(sum(lp) / len(lp), 3),
                "below_greedy": sum(b < g - 1e-4 for b, g in zip(lp, greedy)),  # sentences less probable
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    print(f"{len(sources)} sentences, {args.threads} thread(s), batch {args.batch_size}")


if __name__ == "__main__":
    main()
