"""Command-line interface: `tst <command>` or `python -m tst <command>`. Works without Snakemake."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from pathlib import Path

from tst.io import read_jsonl, read_lines

SCORE_HELP = """\
Score one system's transfers with every metric whose evaluator exists in the dataset's evaluators/
folder (the others are listed under "skipped" with the reason) and print the score JSON on stdout.

Each --outputs file is aligned line by line with the --sources file at the same position; all lines of
a pair share one source style (0 or 1), the target style being 1 - style. Text is tokenized, one
sentence per line, tokens separated by spaces (use the word-level .raw.txt files of BPE datasets).

Metrics (keys of the JSON): acc, sti (style_cnn.pt); transfer_strength (style_lstm.pt); sim (glove.kv +
idf.json); cp, cp_random (glove.kv, words of --cp-lexicon removed); pp_joint (lm_joint.pt); pp_target
(lm_style0.pt + lm_style1.pt); wmd_masked (word2vec_masked.kv + style_lexicon.json), wmd_removed
(word2vec.kv + style_lexicon.json); naturalness_lr / naturalness_nn (naturalness/{system}.{lr,nn}.*);
bleu_self_corpus, bleu_self_sentence (always); bleu_ref_corpus, bleu_ref_sentence (with --references);
gm (acc + sim + pp_joint); attribute_hit (with --lists).

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
    p = sub.add_parser("score", help="score a system's transfers (JSON on stdout)", description=SCORE_HELP,
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
    p.add_argument("--cp-lexicon", default="vader", choices=("vader", "style_lexicon", "none"),
                   help="words removed before content preservation (default: vader = VADER sentiment lexicon)")
    p.add_argument("--cp-seed", type=int, default=0, help="seed of the random pairs of cp_random (default 0)")
    p.add_argument("--gm-t", nargs=4, type=float, default=None, metavar=("T1", "T2", "T3", "T4"),
                   help="GM thresholds (default Pang & Gimpel's 63 71 97 -37)")
    p.add_argument("--metrics", nargs="*", help="compute only these metric keys")
    p.add_argument("--tsv", help="also write per-sentence scores to this TSV")
    p.add_argument("--json", dest="json_out", help="also write the score JSON to this file")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    p.set_defaults(func=cmd_score)


def _lists_by_text(list_paths, text_paths, sources) -> list[list[str]]:
    """Attribute lists of the sources, looked up by exact sentence text in (text file, attributes.jsonl)
    pairs; a source found in none of them gets an empty list (left out of attribute hit and counted)."""
    by_text = {}
    for list_path, text_path in zip(list_paths, text_paths):
        text, rec = read_lines(text_path), read_jsonl(list_path)
        if len(rec) != len(text):
            raise SystemExit(f"{list_path} has {len(rec)} records but {text_path} has {len(text)} lines")
        for line, r in zip(text, rec):
            by_text.setdefault(line, r["independent"])
    return [by_text.get(s, []) for s in sources]


def cmd_score(args) -> dict:
    from tst.score import GM_T, read_references, score_meta, score_system, write_score_json, write_score_tsv

    if len(args.sources) != len(args.outputs):
        raise SystemExit(f"{len(args.sources)} --sources but {len(args.outputs)} --outputs")
    styles = args.source_styles or [_style_of(p) for p in args.sources]
    if len(styles) != len(args.sources):
        raise SystemExit(f"{len(styles)} --source-styles for {len(args.sources)} --sources")
    if args.lists and len(args.lists) != len(args.lists_text or args.sources):
        raise SystemExit(f"{len(args.lists)} --lists for {len(args.lists_text or args.sources)} files")
    sources, outputs, source_styles, lists = [], [], [], [] if args.lists else None
    for k, (sp, op, st) in enumerate(zip(args.sources, args.outputs, styles)):
        src, out = read_lines(sp), read_lines(op)
        if len(src) != len(out):
            raise SystemExit(f"{op} has {len(out)} lines but {sp} has {len(src)}")
        sources += src
        outputs += out
        source_styles += [st] * len(src)
        if args.lists and not args.lists_text:
            rec = read_jsonl(args.lists[k])
            if len(rec) != len(src):
                raise SystemExit(f"{args.lists[k]} has {len(rec)} records but {sp} has {len(src)} lines")
            lists += [r["independent"] for r in rec]
    if args.lists and args.lists_text:
        lists = _lists_by_text(args.lists, args.lists_text, sources)
    references = read_references(args.references, sources) if args.references else None
    dataset_dir = Path(args.dataset_dir)
    scores = score_system(sources, outputs, source_styles, args.evaluators_dir or dataset_dir / "evaluators",
                          references=references, lists=lists, system=args.system, cp_lexicon=args.cp_lexicon,
                          cp_seed=args.cp_seed, gm_t=tuple(args.gm_t) if args.gm_t else GM_T,
                          only=set(args.metrics) if args.metrics else None)
    meta = score_meta(args.dataset or dataset_dir.name, args.system or "unnamed", args.split, args.checkpoint)
    if args.json_out:
        obj = write_score_json(args.json_out, scores, meta, len(outputs))
    else:
        from tst.score import score_json

        obj = score_json(scores, meta, len(outputs))
    if args.tsv:
        write_score_tsv(args.tsv, scores, source_styles)
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
