"""`tst score`: score one system's transfers in files (tst.score.score_files) with the dataset's evaluators,
every command-line mistake stopped before the work."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

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


def _style_of(path: str) -> int:
    from tst.names import style_of_file

    style = style_of_file(path)
    if style is None:
        fail(
            "score",
            f"cannot tell the source style of {path} from its name (it ends in neither .0/.1 nor "
            ".0.txt/.1.txt nor .0.raw.txt/.1.raw.txt): pass --source-styles",
            2,
        )
    return style


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
        default=DEFAULT_OPTIONS["cp_lexicon"],
        choices=CP_LEXICONS,
        help="words removed before content preservation (default: %(default)s; vader = VADER sentiment lexicon)",
    )
    p.add_argument(
        "--cp-seed",
        type=int,
        default=DEFAULT_OPTIONS["cp_seed"],
        help="seed of the random pairs of cp_random (default %(default)s)",
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
        default=DEFAULT_OPTIONS["sbert"],
        help="the all-MiniLM-L6-v2 cosine (sbert_all_minilm_l6_v2), the default GM's content score "
        "(default %(default)s; --no-sbert skips it and the default GM)",
    )
    p.add_argument(
        "--precision",
        default=DEFAULT_OPTIONS["precision"],
        choices=PRECISIONS,
        help="the MiniLM's precision at inference (sbert, the minilm acceptability classifier), as "
        "evaluators.precision (default %(default)s: bf16 autocast on a CPU with bf16 in hardware, "
        "else fp32; named in the metrics' variants)",
    )
    p.add_argument(
        "--pp-count-eos",
        action=argparse.BooleanOptionalAction,
        default=DEFAULT_OPTIONS["pp_count_eos"],
        help="PP (pp_joint, pp_target) counts each sentence's final <eos>, a labelled variant (default "
        "%(default)s; false: not counted, as in Shen et al.'s code, language-style-transfer code/language_model.py)",
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
        "overlaying earlier ones, e.g. config.yaml configs/yelp.yaml: the default of --max-words",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="log progress to stderr (without it, a progress bar when stderr is a terminal)",
    )
    p.set_defaults(func=cmd_score)


def _check_counts(args) -> None:
    """The file lists of `tst score` that must pair up (command-line mistakes: exit 2)."""
    n = len(args.sources)
    if len(args.outputs) != n:
        fail(
            "score",
            f"{n} --sources files but {len(args.outputs)} --outputs files: give one output per source",
            2,
        )
    if args.source_styles is not None and len(args.source_styles) != n:
        fail(
            "score",
            f"{len(args.source_styles)} --source-styles for {n} --sources files: give one per source",
            2,
        )
    if args.lists_text and not args.lists:
        fail("score", "--lists-text given without --lists", 2)
    if args.lists and len(args.lists) != len(args.lists_text or args.sources):
        against = "--lists-text" if args.lists_text else "--sources"
        fail(
            "score",
            f"{len(args.lists)} --lists files for {len(args.lists_text or args.sources)} {against} files",
            2,
        )


def _calibration(args, dataset_dir: Path) -> dict | None:
    """The calibrated GM's thresholds: --gm-calibration, else the dataset's own file when it exists; a file
    that is not JSON or not of the calibration's layout stops with exit 1, naming it."""
    from tst.io import read_json
    from tst.metrics.gm import check_calibration

    path = Path(args.gm_calibration) if args.gm_calibration else dataset_dir / layout.CALIBRATION_FILE
    if args.gm_calibration and not path.is_file():
        fail("score", f"--gm-calibration {path}: no such file", 2)
    if not path.is_file():
        return None
    try:
        return check_calibration(read_json(path), path)
    except json.JSONDecodeError as e:
        fail("score", f"{path}, line {e.lineno}: not JSON ({e.msg}); rebuild it (rule gm_calibration)", 1)
    except (ValueError, UnicodeDecodeError) as e:
        fail("score", str(e), 1)


def _references_release(args, dataset_dir: Path) -> str | None:
    """--references-release, else the release the dataset's data/report.json records (prepare_data, from
    datasets.<name>.references.release) when every --references file is that dataset's own references file."""
    from tst.io import read_json

    if args.references_release or not args.references:
        return args.references_release
    data = (dataset_dir / layout.DATA).resolve()
    own_files = {layout.references_file(s) for s in layout.STYLES}
    own = all(Path(p).resolve().parent == data and Path(p).name in own_files for p in args.references)
    report = data / layout.DATA_REPORT
    if not own or not report.is_file():
        return None
    return (read_json(report).get("references_release") or {}).get("release")


def _max_words(args, dataset: str) -> int:
    """--max-words, else the word limit of the dataset in --config (tst.stages.score_max_words)."""
    from tst.stages import score_max_words

    if args.max_words is not None:
        if args.max_words < 1:
            fail("score", f"--max-words {args.max_words}: must be at least 1", 2)
        return args.max_words
    return score_max_words(_config(args, dataset), dataset)


def _ci(args, dataset: str) -> dict | None:
    """The bootstrap options of --ci (None without it): --ci-resamples / --ci-seed over the config's
    score.bootstrap (--config) over tst.bootstrap.DEFAULTS."""
    if not args.ci:
        return None
    from tst.stages import bootstrap_options

    try:
        opt = bootstrap_options(_config(args, dataset))
    except ValueError as e:
        fail("score", f"--config: score.bootstrap: {e}", 2)
    if args.ci_resamples is not None:
        if args.ci_resamples < 1:
            fail("score", f"--ci-resamples {args.ci_resamples}: must be at least 1", 2)
        opt["n_resamples"] = args.ci_resamples
    if args.ci_seed is not None:
        opt["seed"] = args.ci_seed
    return opt


def _normalization(args, dataset_dir: Path, dataset: str) -> dict:
    """What score_files' normalize gets: the dataset's `normalize:` block and where it was read (--config,
    else the data/report.json prepare_data wrote, else the default: lowercase), or None with --no-normalize;
    and the NER placeholders the corpus writes (tst.nlp.ner's default labels, the --config's ner.labels, the
    placeholders data/report.json counts), kept as written."""
    from tst.io import read_json
    from tst.nlp.ner import DEFAULT_LABELS

    if not args.normalize:
        return {"normalize": None, "from": None}
    placeholders = set(DEFAULT_LABELS.values())
    config = _config(args, dataset)
    if config is not None:
        ds = config["datasets"][dataset]
        placeholders |= set(((ds.get("ner") or {}).get("labels") or {}).values())
        block, where = ds.get("normalize") or {}, "--config"
    else:
        report = dataset_dir / layout.DATA / layout.DATA_REPORT
        report = read_json(report) if report.is_file() else {}
        placeholders |= set((report.get("ner") or {}).get("entities") or {})
        block, where = report.get("normalize"), f"{layout.DATA}/{layout.DATA_REPORT}"
        if block is None:
            block, where = {"lowercase": True, "numbers": False}, "default (lowercase)"
    return {"normalize": block, "from": where, "placeholders": sorted(placeholders)}


def _source_embeddings(args, options, evaluators: Path, dataset: str) -> list[Path]:
    """The sentence embeddings of the --split's sources the workflow computed (rule embed_sources), which its
    score jobs preload (tst.metrics.sbert.start_run): read here too, so both routes batch alike and give the
    same numbers. Only when sbert is on, the files exist and --precision is the workflow's (--config's
    evaluators.precision, else config.yaml's); else none (the sources are encoded here)."""
    from tst.metrics.sbert import scoring_bf16
    from tst.names import sbert_sources_file
    from tst.stages import score_options

    files = [evaluators / sbert_sources_file(args.split, ext) for ext in ("npy", "txt")]
    if not options.sbert or not all(f.is_file() for f in files):
        return []
    config = _config(args, dataset)
    workflow = score_options(config, dataset) if config else {}
    return files if scoring_bf16(workflow) == scoring_bf16(options) else []


def _config(args, dataset: str) -> dict | None:
    """The merged --config files (None without them), checked to define `dataset`; exit 2 naming the fault."""
    if not args.config:
        return None
    import yaml

    from tst.apply import dataset_settings, read_configs

    try:
        config = read_configs(args.config)
        dataset_settings(config, dataset)
    except (ValueError, yaml.YAMLError) as e:
        fail("score", str(e), 2)
    return config


def cmd_score(args) -> dict:
    from tst import signature
    from tst.io import InputError, NotUTF8Error, write_json
    from tst.metrics.gm import DEFAULT_T
    from tst.metrics.registry import METRICS, ScoreOptions, check_keys, files
    from tst.score import coverage_warnings, score_files, score_meta, score_text

    dataset_dir = dataset_root("score", args.dataset_dir)
    dataset = args.dataset or dataset_dir.name
    evaluators = Path(args.evaluators_dir) if args.evaluators_dir else dataset_dir / layout.EVALUATORS
    options = ScoreOptions.of(  # resolved once: the file checks and the scorer read the same value
        {
            "cp_lexicon": args.cp_lexicon,
            "cp_seed": args.cp_seed,
            "sbert": args.sbert,
            "pp_count_eos": args.pp_count_eos,
            "precision": args.precision,
            "references_release": _references_release(args, dataset_dir),
        }
    )
    try:
        keys = check_keys(args.metrics) if args.metrics else list(METRICS)
    except ValueError as e:
        fail("score", str(e), 2)
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
    _check_counts(args)
    check_writable("score", {"--tsv": args.tsv, "--json": args.json_out})
    calibration = _calibration(args, dataset_dir)
    max_words = _max_words(args, dataset)
    ci = _ci(args, dataset)
    if not evaluators.is_dir():
        need = [k for k in keys if files(k, args.system, options)]
        if need:
            free = [k for k in METRICS if not files(k, args.system or "SYSTEM", options)]
            fail(
                "score",
                f"no evaluators folder {evaluators} (--dataset-dir {dataset_dir}"
                f"{' --evaluators-dir ' + args.evaluators_dir if args.evaluators_dir else ''}) but "
                f"{', '.join(need)} need evaluators. Pass the dataset's results folder ({layout.root('<dataset>')}, "
                f"after its evaluators were built), or --metrics with evaluator-free ones only: {' '.join(free)}",
                2,
            )
    from tst.scoring import Evaluators

    bpe = dataset_dir / layout.DATA / layout.BPE_MODEL  # a BPE dataset: its models read encoded text
    sources_embedded = _source_embeddings(args, options, evaluators, dataset) if evaluators.is_dir() else []
    if evaluators.is_dir():
        evaluators = Evaluators(evaluators, bpe=bpe if bpe.is_file() else None)
    if sources_embedded:
        from tst.metrics.sbert import scoring_bf16, start_run

        start_run(sources_embedded, bf16=scoring_bf16(options))  # as the workflow's score jobs
    try:
        obj = score_files(
            evaluators,
            args.sources,
            args.outputs,
            args.source_styles or [_style_of(p) for p in args.sources],
            args.references,
            args.lists,
            args.lists_text,
            meta=score_meta(dataset, args.system or "unnamed", args.split, args.checkpoint),
            options=options,
            only=args.metrics or None,
            gm_t=tuple(args.gm_t) if args.gm_t else DEFAULT_T,
            calibration=calibration,
            tsv_out=args.tsv,
            encoding_errors=args.encoding_errors,
            max_words=max_words,
            progress=not args.verbose and sys.stderr.isatty(),
            ci=ci,
            normalize=_normalization(args, dataset_dir, dataset),
        )
    except NotUTF8Error as e:
        fail("score", f"{e}, or pass --encoding-errors replace", 1)
    except InputError as e:
        fail("score", str(e), 1)
    for warning in coverage_warnings(obj):
        print(f"tst score: warning: {warning}", file=sys.stderr)
    obj["signature"] = signature.with_commit(obj["signature"])  # not cached: the checkout's commit too
    if args.json_out:
        write_json(args.json_out, obj)
    if args.format == "text":
        sys.stdout.write(score_text(obj, options))
    else:
        json.dump(obj, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return obj
