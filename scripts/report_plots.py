"""Plots of one dataset from its score files (rule report_plots).

    python scripts/report_plots.py --scores results/yelp/scores/*/*.json --out-dir results/yelp/plots \
        [--settings '{"pp_bins": 6}'] [--variants '["M0", "M7"]']

Writes {trajectories,robust,tradeoff_ts_cp,tradeoff_sti_wmd,tradeoff_nat_sti}.{png,svg} under --out-dir.
A panel whose metrics no score file has is drawn with the reason on it and logged.
"""

from __future__ import annotations

import argparse
import json
import logging

from tst.report.build import build_plots


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scores", nargs="+", required=True, help="score JSON files")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--settings", default="{}", help="the config's report: section, JSON")
    ap.add_argument("--variants", default="[]", help="variant names in config order, JSON list")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for p in build_plots(a.scores, a.out_dir, json.loads(a.settings), json.loads(a.variants)):
        print(p)


if __name__ == "__main__":
    main()
