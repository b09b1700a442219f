"""Score one system's transfers (rule `score`): a thin wrapper around `tst score`.

python scripts/score.py --dataset-dir results/yelp --system M0.seed1 --split dev --checkpoint ep1.5 \
    --sources d/dev.0.txt d/dev.1.txt --outputs t/dev.ep1.5.0.txt t/dev.ep1.5.1.txt \
    --options '{"cp_lexicon": "vader"}' --json scores/M0.seed1/dev.ep1.5.json --tsv scores/M0.seed1/dev.ep1.5.tsv

The i-th --sources / --outputs file has source style i. --options is the config's `score` block as JSON
(keys cp_lexicon, cp_seed, gm_t); every other argument is passed to `tst score` unchanged.
"""

from __future__ import annotations

import argparse
import json

from tst.cli import main as tst_main


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--options", default="{}", help="JSON: the config's score block")
    ap.add_argument("--sources", nargs="+", required=True)
    args, rest = ap.parse_known_args(argv)
    opts = json.loads(args.options)
    extra = ["--sources", *args.sources, "--source-styles", *(str(i) for i in range(len(args.sources)))]
    if "cp_lexicon" in opts:
        extra += ["--cp-lexicon", str(opts["cp_lexicon"])]
    if "cp_seed" in opts:
        extra += ["--cp-seed", str(int(opts["cp_seed"]))]
    if opts.get("gm_t"):
        extra += ["--gm-t", *(str(float(t)) for t in opts["gm_t"])]
    tst_main(["score", *rest, *extra, "-v"])


if __name__ == "__main__":
    main()
