"""The validity numbers of one finished run, as the docs and notes quote them: each GM of every baseline and
honest system, content separation, word-order damage, the calibrated thresholds and each GM's agreement with
people. Reads only the run's tables and validity files.

    python bench/validity_summary.py results/yelp
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd


def main(root: str) -> None:
    root = Path(root)
    tables = root / "tables"
    print("thresholds:", json.dumps(json.loads((root / "validity" / "gm_thresholds.json").read_text())["t"]))
    allm = pd.read_csv(tables / "metrics_all.csv")
    cols = [
        c
        for c in (
            "system",
            "kind",
            "acc",
            "sim",
            "sbert_all_minilm_l6_v2",
            "pp_joint",
            "gm",
            "gm_pg",
            "distinct",
            "bleu_self_corpus",
            "acceptability",
        )
        if c in allm.columns
    ]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(allm[cols].round(3).to_string(index=False))
        print(
            pd.read_csv(tables / "content_separation.csv")[["metric", "mean_true", "mean_shuffled", "auc"]]
            .round(3)
            .to_string(index=False)
        )
        print(pd.read_csv(tables / "word_order.csv").round(2).to_string(index=False))
    v = pd.read_csv(tables / "validity.csv")
    for key in ("gm", "gm_pg"):
        bad = v[(v["metric"] == key) & ~v["below_every_honest"]]
        print(
            f"{key}: baselines not below every honest system:",
            "; ".join(f"{r.baseline} ({r.score:.2f}, not below {r.not_below})" for r in bad.itertuples())
            or "none",
        )
    notes = (tables / "validity.md").read_text().splitlines()
    print(*[n for n in notes if "Agreement with people" in n], sep="\n")


if __name__ == "__main__":
    main(sys.argv[1])
