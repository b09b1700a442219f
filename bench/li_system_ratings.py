"""Per-system means of Li et al.'s Yelp ratings (docs/validity.md, "What Li et al.'s raters say of retrieval").

    python bench/li_system_ratings.py [--data-dir $TST_DATA_DIR, default ../shared/data]

Matches the 399 rating tasks to the eight systems' outputs with tst.human.ratings (as rule human_correlation
does) and prints, per system, the mean of each aspect, the overall mean (tst.human.ratings.overall_score) and
the share of rewrites whose three mean ratings are all >= 4 (Li et al.'s success criterion).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tst.human.ratings import ASPECTS, match_ratings, overall_score, parse_ratings_csv, read_system_outputs

DATA = os.environ.get("TST_DATA_DIR") or str(Path(__file__).resolve().parents[2] / "shared" / "data")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DATA)
    args = ap.parse_args()
    li = args.data_dir / "yelp" / "li"
    table, _ = match_ratings(
        parse_ratings_csv(li / "human_ratings" / "ratings-yelp.csv"), read_system_outputs(li / "outputs")
    )
    table["overall"] = overall_score(table)
    table["success"] = (table[list(ASPECTS)] >= 4).all(axis=1)
    means = table.groupby("system")[[*ASPECTS, "overall", "success"]].mean()
    print(f"{len(table)} rated rewrites")
    print(means.sort_values("overall", ascending=False).round(3).to_markdown())


if __name__ == "__main__":
    main()
