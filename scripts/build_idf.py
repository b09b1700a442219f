"""idf over the training corpus (each sentence a document): python scripts/build_idf.py --train t.0 t.1 --out idf.json"""

from __future__ import annotations

import argparse

from tst.evaluators.idf import compute_idf
from tst.io import read_sentences, write_json


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    write_json(args.out, compute_idf([s for p in args.train for s in read_sentences(p)]))


if __name__ == "__main__":
    main()
