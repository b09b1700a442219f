"""Parse a tokenized corpus once (tagger + dependency parser, no NER) into JSON lines.

python scripts/parse.py --input test.0.txt --nlp '{"backend": "spacy"}' --out test.0.parse.jsonl

One record per input line (empty lines give empty records), see tst.nlp.attributes.doc_to_record.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tst.io import read_sentences
from tst.nlp.attributes import parse_records
from tst.nlp.backend import backend_from_config


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--input", required=True, help="one tokenized sentence per line")
    ap.add_argument("--nlp", default="{}", help="JSON: the config's nlp block (backend, spacy_model, ...)")
    ap.add_argument("--chunk", type=int, default=20000, help="sentences held in memory at once")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    sentences = read_sentences(args.input)
    backend = backend_from_config(json.loads(args.nlp))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(out, "w", encoding="utf-8") as f:
        for start in range(0, len(sentences), args.chunk):
            records = parse_records(backend, sentences[start:start + args.chunk])
            f.writelines(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records)
    dt = time.perf_counter() - t0
    print(f"parsed {len(sentences)} sentences in {dt:.1f} s ({len(sentences) / max(dt, 1e-9):.0f}/s)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
