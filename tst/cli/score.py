"""`tst score`: its command line (argparse) and exit codes; the request it makes is built and checked by
tst.scoring.request and scored by tst.scoring.run."""

from __future__ import annotations

import argparse
import json
import sys

from tst import layout
from tst.cli.checks import check_files, check_writable, dataset_root, fail

SCORE_HELP = """\
Score one system's transfers with every metric whose evaluator exists in the dataset's evaluators/
folder (the others are listed under "skipped" with the reason) and print the score JSON on stdout.

Each --outputs file is aligned line by line with the --sources file at the same position; all lines of
a pair share one source style (0 or 1), the target style being 1 - style. Text is tokenized, one
sentence per line, tokens separated by spaces (use the word-level .raw.txt files of BPE datasets).

Metrics (JSON key, label in the tables, evaluator files in the evaluators folder or what else it needs):
{metrics}

Errors are printed without a traceback, after "tst score: error:": exit code 2 when the command line is
wrong (an option, a file that does not exist, N --sources but M --outputs files, a source file whose name
carries no style, a dataset folder without evaluators while --metrics asks for evaluator metrics), 1 when
an input file's content is (a byte that is not UTF-8, a line without a tab, files that do not align, an
empty file: "no sentences", a GM thresholds file of the wrong layout); the message names the file and the
line. An evaluator file that cannot be loaded or has the wrong layout skips only its metrics ("skipped").

example:
  tst score --dataset-dir {root} --system M0.seed1 \\
      --sources {sources} \\
      --outputs transfers/test.ep1.0.0.txt transfers/test.ep1.0.1.txt \\
      --references {references} --tsv out.tsv
"""
SCORE_EXAMPLE = {  # a dataset's files as the workflow lays them out (tst.layout)
    "root": layout.root("yelp"),
    "sources": " ".join(layout.text("yelp", "test", s) for s in layout.STYLES),
    "references": " ".join(layout.references("yelp", s) for s in layout.STYLES),
}


def add_score(sub) -> None:
    from tst.bootstrap import DEFAULTS as BOOTSTRAP
    from tst.device import PRECISIONS
    from tst.io import ENCODING_ERRORS
    from tst.metrics.gm import DEFAULT_T
    from tst.metrics.registry import CP_LEXICONS, DEFAULT_OPTIONS, SCORE_CHARS_PER_WORD, help_lines
    from tst.stages import LENGTH_MAX_WORDS, SCORE_MAX_WORDS_FACTOR

    p = sub.add_parser(
        "score",
        help="score a system's transfers (JSON on stdout)",
        description=SCORE_HELP.format(metrics="\n".join(help_lines()), **SCORE_EXAMPLE),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--dataset-dir",
        required=True,
        help=f"{layout.root()}: its {layout.EVALUATORS}/ folder holds the evaluators (see --evaluators-dir)",
    )
    p.add_argument("--evaluators-dir", help=f"evaluators folder (default: DATASET_DIR/{layout.EVALUATORS})")
    p.add_argument("--sources", nargs="+", required=True, help="source files, one per style")
    p.add_argument("--outputs", nargs="+", required=True, help="output files, aligned with --sources")
    p.add_argument(
        "--source-styles",
        nargs="+",
        type=int,
        choices=(0, 1),
        help="style of each --sources file (default: read from its name: test.0.txt, test.0.raw.txt, out.1)",
    )
    p.add_argument(
        "--references",
        nargs="*",
        default=[],
        help="human references, 'source<TAB>reference[<TAB>...]' files, matched on the source text",
    )
    p.add_argument(
        "--lists",
        nargs="*",
        default=[],
        help="attributes.jsonl files aligned with --sources (their 'independent' lists): attribute hit",
    )
    p.add_argument(
        "--lists-text",
        nargs="*",
        default=[],
        help="the text files the --lists are aligned with, when they are not the --sources (e.g. an "
        "external system's sources): lists are then matched to sources on the exact text",
    )
    p.add_argument(
        "--system", help="system name (names the naturalness classifiers; M0.seed1 -> variant, seed)"
    )
    p.add_argument("--dataset", help="dataset name for the JSON header (default: the dataset dir's name)")
    p.add_argument("--split", default="test", help="split for the JSON header (default: test)")
    p.add_argument("--checkpoint", default="final", help="checkpoint for the JSON header (default: final)")
    p.add_argument(
        "--cp-lexicon",
        default=None,
        choices=CP_LEXICONS,
        help="words removed before content preservation (default: the dataset's cp_lexicon in --config, "
        f"else score.cp_lexicon there, else {DEFAULT_OPTIONS['cp_lexicon']}; vader = VADER sentiment lexicon)",
    )
    p.add_argument(
        "--cp-seed",
        type=int,
        default=None,
        help=f"seed of the random pairs of cp_random (default: --config's score.cp_seed, else "
        f"{DEFAULT_OPTIONS['cp_seed']})",
    )
    p.add_argument(
        "--gm-t",
        nargs=4,
        type=float,
        default=None,
        metavar=("T1", "T2", "T3", "T4"),
        help=f"GM thresholds (default Pang & Gimpel's {' '.join(f'{x:g}' for x in DEFAULT_T)})",
    )
    p.add_argument(
        "--gm-calibration",
        default=None,
        metavar="FILE",
        help="thresholds of the default GM, calibrated on the dataset's sanity baselines (default: "
        "DATASET_DIR/validity/gm_thresholds.json when it exists; without it gm is skipped, gm_pg is computed)",
    )
    p.add_argument(
        "--sbert",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the all-MiniLM-L6-v2 cosine (sbert_all_minilm_l6_v2), the default GM's content score "
        f"(default: --config's score.sbert, else {DEFAULT_OPTIONS['sbert']}; --no-sbert skips it and the "
        "default GM)",
    )
    p.add_argument(
        "--precision",
        default=None,
        choices=PRECISIONS,
        help="the MiniLM's precision at inference (sbert, the minilm acceptability classifier), as "
        f"evaluators.precision (default: --config's evaluators.precision, else {DEFAULT_OPTIONS['precision']}"
        ": bf16 autocast on a CPU with bf16 in hardware, else fp32; named in the metrics' variants)",
    )
    p.add_argument(
        "--pp-count-eos",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="PP (pp_joint, pp_target) counts each sentence's final <eos>, a labelled variant (default: "
        f"--config's score.pp_count_eos, else {DEFAULT_OPTIONS['pp_count_eos']}; false: not counted, as in Shen "
        "et al.'s code, language-style-transfer code/language_model.py)",
    )
    p.add_argument(
        "--references-release",
        default=None,
        metavar="NAME",
        help="the --references' release (e.g. repository@commit), named in the ref-BLEU variants (default: "
        "the release DATASET_DIR/data/report.json records when the --references are that dataset's own "
        "data/references.*.tsv)",
    )
    p.add_argument(
        "--ci",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="each metric's 95%% confidence interval, ci95: [lo, hi], from a paired bootstrap over the "
        "sentences (tst.bootstrap: percentile interval; PP, corpus BLEU and GM recomputed on each resample; "
        "default on, it adds well under a second; --no-ci leaves it out)",
    )
    p.add_argument(
        "--ci-resamples",
        type=int,
        metavar="B",
        help="bootstrap resamples of --ci (default: the config's score.bootstrap.n_resamples, else "
        f"{BOOTSTRAP['n_resamples']})",
    )
    p.add_argument(
        "--ci-seed",
        type=int,
        metavar="S",
        help=f"seed of the resamples (default: score.bootstrap.seed, else {BOOTSTRAP['seed']})",
    )
    p.add_argument(
        "--normalize",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="normalize every line read (sources, outputs, references) as the workflow normalizes the corpus "
        "and the published systems: curly quotes as ' and \", PTB tokens (tokenized text is left as it is), "
        "then the dataset's normalize block (lowercase, numbers) from --config, else "
        "DATASET_DIR/data/report.json, else lowercase, NER placeholders (-PERSON-) kept as the corpus writes "
        "them; so text cased and detokenized as people and LLMs write it scores like tokenized text "
        "(default %(default)s; --no-normalize scores the lines as given; the JSON's normalization says which)",
    )
    p.add_argument("--metrics", nargs="*", help="compute only these metric keys")
    p.add_argument(
        "--format",
        choices=("json", "text"),
        default="json",
        help="what goes to stdout: json = the score JSON (default); text = one row per metric (metric, value, "
        "95%% interval, direction, what it reads), then the signature line",
    )
    p.add_argument("--tsv", help="also write per-sentence scores to this TSV")
    p.add_argument("--json", dest="json_out", help="also write the score JSON to this file")
    p.add_argument(
        "--encoding-errors",
        choices=ENCODING_ERRORS,
        default="strict",
        help="bytes that are not UTF-8 in an input file: strict = stop, naming the file and line "
        "(default); replace = U+FFFD, the count of such lines per file goes to the JSON's input_encoding",
    )
    p.add_argument(
        "--max-words",
        type=int,
        metavar="N",
        help="cut every source, output and reference line longer than N tokens to its first N (and one "
        f"longer than {SCORE_CHARS_PER_WORD} x N characters to that many), and count them (the JSON's "
        "n_truncated, truncated_lines), so one huge line cannot exhaust memory (default: "
        f"the config's score.max_words, else {SCORE_MAX_WORDS_FACTOR} x the dataset's length.max_words "
        f"from --config, else {SCORE_MAX_WORDS_FACTOR} x {LENGTH_MAX_WORDS})",
    )
    p.add_argument(
        "--config",
        nargs="+",
        metavar="FILE",
        help="config file(s) defining the dataset (--dataset, default the dataset dir's name), later ones "
        "overlaying earlier ones, e.g. config.yaml configs/yelp.yaml: scored as the workflow scores that "
        "dataset: its scoring options (cp_lexicon, precision, ...: the default of each flag), --max-words, "
        "the normalize block, and the NER masking of the sources and references (datasets.<name>.ner)",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="log progress to stderr (without it, a progress bar when stderr is a terminal)",
    )
    p.set_defaults(func=cmd_score)


def scored(args, dataset_dir):
    """(the request, the score object) of `tst score`'s parsed arguments: the request built and checked
    (tst.scoring.arguments.from_command_line), scored (tst.scoring.run.score), the signature given the checkout's
    commit (an output that is not cached). What `tst score` prints and tst.score_texts returns; RequestError or
    InputError on a mistake."""
    from tst import signature
    from tst.scoring.arguments import from_command_line
    from tst.scoring.run import score

    request = from_command_line(args, dataset_dir)
    obj = score(request, tsv_out=args.tsv)
    obj["signature"] = signature.with_commit(obj["signature"])  # not cached: the checkout's commit too
    return request, obj


def cmd_score(args) -> dict:
    """Run `tst score`: the command line checked (files there, outputs writable), the request built and checked
    (tst.scoring.arguments.from_command_line), scored (tst.scoring.run.score); each mistake stops with its exit
    code (2: the command line, 1: a file's content) before the work, as far as it can be known before it."""
    from tst.io import InputError, NotUTF8Error, write_json
    from tst.scoring.request import RequestError
    from tst.scoring.write import coverage_warnings, score_text

    dataset_dir = dataset_root("score", args.dataset_dir)
    check_files(
        "score",
        {
            "--sources": args.sources,
            "--outputs": args.outputs,
            "--references": args.references,
            "--lists": args.lists,
            "--lists-text": args.lists_text,
            "--config": args.config,
        },
        stdin=False,
    )
    check_writable("score", {"--tsv": args.tsv, "--json": args.json_out})
    try:
        request, obj = scored(args, dataset_dir)
    except RequestError as e:
        fail("score", str(e), e.code)
    except NotUTF8Error as e:
        fail("score", f"{e}, or pass --encoding-errors replace", 1)
    except InputError as e:
        fail("score", str(e), 1)
    for warning in coverage_warnings(obj):
        print(f"tst score: warning: {warning}", file=sys.stderr)
    if args.json_out:
        write_json(args.json_out, obj)
    if args.format == "text":
        sys.stdout.write(score_text(obj, request.options))
    else:
        json.dump(obj, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return obj
