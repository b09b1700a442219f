"""Tables of one dataset from its score files (rule report_tables).

    python scripts/report_tables.py --scores results/yelp/scores/*/*.json --out-dir results/yelp/tables \
        [--settings '{"target_acc": 0.8}'] [--variants '["M0", "M7"]'] \
        [--correlations results/yelp/human/correlation.csv] [--aggregate results/yelp/human/aggregate.json]

Writes {pang_gimpel,bleu_ref,metrics_all,metric_vs_human,aggregation}.{csv,md,tex} under --out-dir.
--settings is the config's `report:` section as JSON; --variants the config's variant names (row order
and colours).
"""

from __future__ import annotations

import argparse
import json
import logging

from tst.report.build import build_tables


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scores", nargs="+", required=True, help="score JSON files")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--settings", default="{}", help="the config's report: section, JSON")
    ap.add_argument("--variants", default="[]", help="variant names in config order, JSON list")
    ap.add_argument("--correlations", help="human correlation.csv (optional)")
    ap.add_argument("--aggregate", help="human aggregate.json (optional)")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for p in build_tables(a.scores, a.out_dir, json.loads(a.settings), json.loads(a.variants),
                          a.correlations, a.aggregate):
        print(p)


if __name__ == "__main__":
    main()
