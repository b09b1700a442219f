"""Parse throughput (sentences/s) on the Li et al. Yelp test set: tagger + parser only, batched.

.venv/bin/python bench/bench_parse.py [--data ../shared/data] [--threads 2] [--repeats 3]

Prints one JSON line per batch size (best of --repeats): wall-clock rate and process-CPU-time rate (the
latter is the fair number on a shared machine), plus the list-extraction rate.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch

from tst.io import read_sentences
from tst.nlp.attributes import doc_to_record, extract, record_to_doc
from tst.nlp.backend import load_backend


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    default = os.environ.get("TST_DATA_DIR") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--data", default=default)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 256, 1000])
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    li = Path(args.data) / "yelp" / "li"
    sentences = read_sentences(li / "sentiment.test.0") + read_sentences(li / "sentiment.test.1")
    n_tokens = sum(map(len, sentences))
    for bs in args.batch_sizes:
        backend = load_backend("spacy", batch_size=bs)
        backend.annotate(sentences[:100], parse=True, ner=False)  # warm-up
        best = best_cpu = float("inf")
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            docs = backend.annotate(sentences, parse=True, ner=False)
            best = min(best, time.perf_counter() - t0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        print(
            json.dumps(
                {
                    "batch_size": bs,
                    "components": backend.components(parse=True, ner=False),
                    "sentences": len(sentences),
                    "tokens": n_tokens,
                    "seconds": round(best, 3),
                    "sentences_per_s": round(len(sentences) / best),
                    "tokens_per_s": round(n_tokens / best),
                    "cpu_seconds": round(best_cpu, 3),
                    "sentences_per_cpu_s": round(len(sentences) / best_cpu),
                }
            )
        )
    records = [doc_to_record(d) for d in docs]
    t0 = time.perf_counter()
    for r in records:
        extract(record_to_doc(r))
    dt = time.perf_counter() - t0
    print(json.dumps({"extract_sentences_per_s": round(len(records) / dt)}))


if __name__ == "__main__":
    main()
