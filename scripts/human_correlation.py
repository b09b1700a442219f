"""Sentence- and system-level correlation of every per-sentence metric with Li et al.'s human ratings.

Usage: python scripts/human_correlation.py --ratings ratings-yelp.csv --outputs li/outputs \
    --scores mit=results/yelp/scores/mit/test.final.tsv ... --out results/yelp/human/correlation.csv
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tst.human.correlation import correlations, load_rated_metrics


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ratings", required=True)
    ap.add_argument("--outputs", required=True, help="folder of sentiment.test.{0,1}.<system> files")
    ap.add_argument("--scores", nargs="+", required=True, help="system=per-sentence score TSV")
    ap.add_argument("--out", required=True)
    ap.add_argument("--joined-out", default=None, help="also write the ratings table joined with metrics")
    args = ap.parse_args(argv)
    scores = dict(item.split("=", 1) for item in args.scores)
    _, joined, _ = load_rated_metrics(args.ratings, args.outputs, scores)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    correlations(joined).to_csv(args.out, index=False, float_format="%.6g")
    if args.joined_out:
        joined.to_csv(args.joined_out, sep="\t", index=False)


if __name__ == "__main__":
    main()
