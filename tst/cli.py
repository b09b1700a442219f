"""Command-line interface: `tst <command>` or `python -m tst <command>`. Works without Snakemake."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from pathlib import Path

SCORE_HELP = """\
Score one system's transfers with every metric whose evaluator exists in the dataset's evaluators/
folder (the others are listed under "skipped" with the reason) and print the score JSON on stdout.

Each --outputs file is aligned line by line with the --sources file at the same position; all lines of
a pair share one source style (0 or 1), the target style being 1 - style. Text is tokenized, one
sentence per line, tokens separated by spaces (use the word-level .raw.txt files of BPE datasets).

Metrics (JSON key, label in the tables, evaluator files in the evaluators folder or what else it needs):
{metrics}

example:
  tst score --dataset-dir results/yelp --system M0.seed1 \\
      --sources results/yelp/data/test.0.txt results/yelp/data/test.1.txt \\
      --outputs transfers/test.ep1.0.0.txt transfers/test.ep1.0.1.txt \\
      --references results/yelp/data/references.0.tsv results/yelp/data/references.1.tsv --tsv out.tsv
"""


def _style_of(path: str) -> int:
    m = re.search(r"\.([01])(?:\.txt)?$", path)
    if not m:
        raise SystemExit(f"cannot tell the source style of {path}: pass --source-styles")
    return int(m.group(1))


def _add_score(sub) -> None:
    from tst.metrics.registry import CP_LEXICONS, DEFAULT_OPTIONS, help_lines

    p = sub.add_parser("score", help="score a system's transfers (JSON on stdout)",
                       description=SCORE_HELP.format(metrics="\n".join(help_lines())),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset-dir", required=True,
                   help="results/{dataset}: its evaluators/ folder holds the evaluators (see --evaluators-dir)")
    p.add_argument("--evaluators-dir", help="evaluators folder (default: DATASET_DIR/evaluators)")
    p.add_argument("--sources", nargs="+", required=True, help="source files, one per style")
    p.add_argument("--outputs", nargs="+", required=True, help="output files, aligned with --sources")
    p.add_argument("--source-styles", nargs="+", type=int, choices=(0, 1),
                   help="style of each --sources file (default: read from a '.0.txt'/'.1.txt' file name)")
    p.add_argument("--references", nargs="*", default=[],
                   help="human references, 'source<TAB>reference[<TAB>...]' files, matched on the source text")
    p.add_argument("--lists", nargs="*", default=[],
                   help="attributes.jsonl files aligned with --sources (their 'independent' lists): attribute hit")
    p.add_argument("--lists-text", nargs="*", default=[],
                   help="the text files the --lists are aligned with, when they are not the --sources (e.g. an "
                   "external system's sources): lists are then matched to sources on the exact text")
    p.add_argument("--system", help="system name (names the naturalness classifiers; M0.seed1 -> variant, seed)")
    p.add_argument("--dataset", help="dataset name for the JSON header (default: the dataset dir's name)")
    p.add_argument("--split", default="test", help="split for the JSON header (default: test)")
    p.add_argument("--checkpoint", default="final", help="checkpoint for the JSON header (default: final)")
    p.add_argument("--cp-lexicon", default=DEFAULT_OPTIONS["cp_lexicon"], choices=CP_LEXICONS,
                   help="words removed before content preservation (default: vader = VADER sentiment lexicon)")
    p.add_argument("--cp-seed", type=int, default=DEFAULT_OPTIONS["cp_seed"], help="seed of the random pairs of cp_random (default 0)")
    p.add_argument("--gm-t", nargs=4, type=float, default=None, metavar=("T1", "T2", "T3", "T4"),
                   help="GM thresholds (default Pang & Gimpel's 63 71 97 -37)")
    p.add_argument("--metrics", nargs="*", help="compute only these metric keys")
    p.add_argument("--tsv", help="also write per-sentence scores to this TSV")
    p.add_argument("--json", dest="json_out", help="also write the score JSON to this file")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    p.set_defaults(func=cmd_score)


def cmd_score(args) -> dict:
    from tst.metrics.gm import DEFAULT_T
    from tst.score import InputError, score_files, score_meta

    dataset_dir = Path(args.dataset_dir)
    try:
        obj = score_files(
            args.evaluators_dir or dataset_dir / "evaluators", args.sources, args.outputs,
            args.source_styles or [_style_of(p) for p in args.sources], args.references, args.lists,
            args.lists_text, meta=score_meta(args.dataset or dataset_dir.name, args.system or "unnamed", args.split,
                                             args.checkpoint),
            options={"cp_lexicon": args.cp_lexicon, "cp_seed": args.cp_seed}, only=args.metrics or None,
            gm_t=tuple(args.gm_t) if args.gm_t else DEFAULT_T, json_out=args.json_out, tsv_out=args.tsv)
    except InputError as e:
        raise SystemExit(f"tst score: {e}") from None
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return obj


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tst", description="Text style transfer pipeline commands.")
    sub = ap.add_subparsers(dest="command", required=True)
    _add_score(sub)
    return ap


def main(argv=None) -> None:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.ERROR,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    args.func(args)


if __name__ == "__main__":
    main()
