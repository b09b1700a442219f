"""Command-line interface: `tst <command>` or `python -m tst <command>`. Works without Snakemake."""

from __future__ import annotations

import argparse
import json
import logging
import pickle
import sys
from pathlib import Path

from tst import layout

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


def _add_score(sub) -> None:
    from tst.bootstrap import DEFAULTS as BOOTSTRAP
    from tst.config import LENGTH_MAX_WORDS, SCORE_MAX_WORDS_FACTOR
    from tst.device import PRECISIONS
    from tst.io import ENCODING_ERRORS
    from tst.metrics.gm import DEFAULT_T
    from tst.metrics.registry import CP_LEXICONS, DEFAULT_OPTIONS, SCORE_CHARS_PER_WORD, help_lines

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
        "and the published systems: PTB tokens (tokenized text is left as it is), then the dataset's "
        "normalize block (lowercase, numbers) from --config, else DATASET_DIR/data/report.json, else "
        "lowercase; so text cased and detokenized as people and LLMs write it scores like tokenized text "
        "(default %(default)s; --no-normalize scores the lines as given; the JSON's normalization says which)",
    )
    p.add_argument("--metrics", nargs="*", help="compute only these metric keys")
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


def fail(command: str, message: str, code: int):
    """Print `tst COMMAND: error: MESSAGE` on stderr and exit with `code` (2: the command line, 1: a file)."""
    print(f"tst {command}: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def _check_files(command: str, groups: dict, stdin: bool = True) -> None:
    for option, paths in groups.items():
        for path in paths or ():
            if path == "-" and not stdin:
                fail(command, f"{option} -: tst {command} reads files, not standard input; pass a file", 2)
            if path != "-" and not Path(path).is_file():
                fail(command, f"{option} {path}: no such file", 2)


def _check_writable(command: str, groups: dict) -> None:
    """Each output path is not a folder and its nearest existing folder is writable (checked before the work)."""
    import os

    for option, path in groups.items():
        if not path:
            continue
        p = Path(path)
        if p.is_dir():
            fail(command, f"{option} {path}: is a folder; pass a file name", 2)
        parent = next((a for a in p.absolute().parents if a.exists()), None)
        if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            fail(command, f"{option} {path}: cannot write there ({parent} is not a writable folder)", 2)


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
    """--max-words, else the word limit of the dataset in --config (tst.config.score_max_words)."""
    from tst.config import score_max_words

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
    from tst.config import bootstrap_options

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
    else the data/report.json prepare_data wrote, else the default: lowercase), or None with --no-normalize."""
    from tst.io import read_json

    if not args.normalize:
        return {"normalize": None, "from": None}
    config = _config(args, dataset)
    if config is not None:
        return {"normalize": config["datasets"][dataset].get("normalize") or {}, "from": "--config"}
    report = dataset_dir / layout.DATA / layout.DATA_REPORT
    if report.is_file():
        block = read_json(report).get("normalize")
        if block is not None:
            return {"normalize": block, "from": f"{layout.DATA}/{layout.DATA_REPORT}"}
    return {"normalize": {"lowercase": True, "numbers": False}, "from": "default (lowercase)"}


def _config(args, dataset: str) -> dict | None:
    """The merged --config files (None without them), checked to define `dataset`; exit 2 naming the fault."""
    if not args.config:
        return None
    import yaml

    from tst.apply import dataset_settings, merge_configs

    try:
        configs = []
        for path in args.config:
            with open(path, encoding="utf-8") as f:
                configs.append(yaml.safe_load(f))
        config = merge_configs(configs)
        dataset_settings(config, dataset)
    except (ValueError, yaml.YAMLError) as e:
        fail("score", str(e), 2)
    return config


def cmd_score(args) -> dict:
    from tst import signature
    from tst.io import InputError, NotUTF8Error, write_json
    from tst.metrics.gm import DEFAULT_T
    from tst.metrics.registry import METRICS, ScoreOptions, check_keys, files
    from tst.score import coverage_warnings, score_files, score_meta

    dataset_dir = Path(args.dataset_dir)
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
    _check_files(
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
    _check_writable("score", {"--tsv": args.tsv, "--json": args.json_out})
    calibration = _calibration(args, dataset_dir)
    max_words = _max_words(args, args.dataset or dataset_dir.name)
    ci = _ci(args, args.dataset or dataset_dir.name)
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

    bpe = (
        dataset_dir / layout.DATA / layout.BPE_MODEL
    )  # a BPE dataset: its piece-trained models read encoded text
    if evaluators.is_dir():
        evaluators = Evaluators(evaluators, bpe=bpe if bpe.is_file() else None)
    try:
        obj = score_files(
            evaluators,
            args.sources,
            args.outputs,
            args.source_styles or [_style_of(p) for p in args.sources],
            args.references,
            args.lists,
            args.lists_text,
            meta=score_meta(
                args.dataset or dataset_dir.name, args.system or "unnamed", args.split, args.checkpoint
            ),
            options=options,
            only=args.metrics or None,
            gm_t=tuple(args.gm_t) if args.gm_t else DEFAULT_T,
            calibration=calibration,
            tsv_out=args.tsv,
            encoding_errors=args.encoding_errors,
            max_words=max_words,
            progress=not args.verbose and sys.stderr.isatty(),
            ci=ci,
            normalize=_normalization(args, dataset_dir, args.dataset or dataset_dir.name),
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
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return obj


TRANSFER_HELP = """\
Transfer new sentences with a trained checkpoint: raw text in (one sentence per line), prepared exactly as the
dataset's text was (its normalize, ner and bpe settings from the config, its bpe.model), transferred by greedy
decoding or beam search (--beam, default the config's transfer.beam_width as the workflow's test transfers),
names put back: one line of words out per line in.

Exit code 2 when the command line is wrong (a missing file, an unknown dataset or style), 1 when a file's
content is (a byte that is not UTF-8, a checkpoint that cannot be loaded).

example:
  echo "John was rude to us" | tst transfer {checkpoint} \\
      --dataset-dir {data} --to-style positive
"""


def demo_last_checkpoint() -> str:
    """The last checkpoint of the demo's models as config.yaml trains them (transfer.epochs x
    checkpoints_per_epoch), M0's of seed 1: the file `make run` leaves for `tst transfer`."""
    from tst.defaults import default
    from tst.names import checkpoint_labels

    last = checkpoint_labels(default("transfer", "epochs"), default("transfer", "checkpoints_per_epoch"))[-1]
    return layout.checkpoint("demo", "M0", 1, last)


def _add_transfer(sub) -> None:
    example = {"checkpoint": demo_last_checkpoint(), "data": layout.data("demo")}
    p = sub.add_parser(
        "transfer",
        help="transfer new sentences with a trained checkpoint",
        description=TRANSFER_HELP.format(**example),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("checkpoint", help=f"a transfer checkpoint, e.g. {example['checkpoint']}")
    p.add_argument(
        "--dataset-dir",
        required=True,
        help=f"the dataset's prepared data, {layout.data('<dataset>')} (its {layout.BPE_MODEL} when it uses BPE)",
    )
    p.add_argument(
        "--to-style",
        required=True,
        help="target style: 0, 1 or its name in the config (the input is of the other style)",
    )
    p.add_argument("--input", default="-", help="raw sentences, one per line (default -: stdin)")
    p.add_argument("--output", default="-", help="where the transfers go (default -: stdout)")
    p.add_argument(
        "--config",
        nargs="+",
        default=["config.yaml"],
        help="config file(s), later ones overlaying earlier ones as with snakemake --configfile "
        "(default: config.yaml)",
    )
    p.add_argument(
        "--dataset",
        help=f"dataset name in the config (default: the name of DATASET_DIR's parent, {layout.data('<dataset>')})",
    )
    p.add_argument("--device", help="cpu, cuda, cuda:1 (default: CUDA when present)")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument(
        "--beam",
        type=int,
        default=None,
        metavar="WIDTH",
        help="beam width, 1 = greedy (default: transfer.beam_width of the --config, as the workflow's test "
        "transfers; 1 without)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    p.set_defaults(func=cmd_transfer)


def cmd_transfer(args) -> list[str]:
    import yaml

    from tst.apply import dataset_settings, merge_configs, style_index, transfer_lines
    from tst.config import beam_width
    from tst.io import InputError, NotUTF8Error, decode_lines, read_lines, write_lines

    _check_files(
        "transfer", {"checkpoint": [args.checkpoint], "--input": [args.input], "--config": args.config}
    )
    dataset_dir = Path(args.dataset_dir)
    if not dataset_dir.is_dir():
        fail("transfer", f"--dataset-dir {dataset_dir}: no such folder (pass {layout.data('<dataset>')})", 2)
    name = args.dataset or (
        dataset_dir.resolve().parent.name
        if dataset_dir.resolve().name == layout.DATA
        else dataset_dir.resolve().name
    )
    try:
        configs = []
        for path in args.config:
            with open(path, encoding="utf-8") as f:
                configs.append(yaml.safe_load(f))
        merged = merge_configs(configs)
        ds_cfg, nlp_cfg = dataset_settings(merged, name)
        to_style = style_index(args.to_style, list(ds_cfg.get("styles") or []))
        beam = args.beam if args.beam is not None else beam_width(merged)
        if beam < 1:
            raise ValueError(f"--beam {beam}: the beam width is 1 (greedy) or more")
    except (ValueError, yaml.YAMLError) as e:
        fail("transfer", str(e), 2)
    try:
        if args.input == "-":
            stdin = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
            lines = decode_lines(stdin, "standard input")[0]
        else:
            lines = read_lines(args.input)
    except NotUTF8Error as e:
        fail("transfer", str(e), 1)
    try:
        out = transfer_lines(
            args.checkpoint,
            lines,
            to_style,
            ds_cfg,
            dataset_dir,
            nlp_cfg=nlp_cfg,
            device=args.device,
            batch_size=args.batch_size,
            beam_width=beam,
        )
    except (InputError, FileNotFoundError) as e:
        fail("transfer", str(e), 1)
    except (RuntimeError, KeyError, EOFError, pickle.UnpicklingError) as e:
        first = (str(e).splitlines() or [""])[0].split(". ")[0]
        fail(
            "transfer",
            f"cannot use checkpoint {args.checkpoint}: not a transfer checkpoint that loads with "
            f"torch.load(weights_only=True) ({type(e).__name__}: {first})",
            1,
        )
    if args.output == "-":
        sys.stdout.writelines(line + "\n" for line in out)
    else:
        write_lines(args.output, out)
    return out


def package_version() -> str:
    """`tst --version`: the package version, the scoring code's hash and the checkout's commit (tst.signature)."""
    from tst import signature

    v = signature.version()
    v = "unknown (not installed: pip install -e .)" if v == "unknown" else v
    return f"{v} (scoring code {signature.scoring_code()}, commit {signature.commit()})"


class _Version(argparse.Action):
    """--version, worked out only when asked (the code hash and git are not for every command)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {package_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tst", description="Text style transfer pipeline commands.")
    ap.add_argument(
        "--version", action=_Version, nargs=0, help="show the version, the scoring code's hash and exit"
    )
    sub = ap.add_subparsers(dest="command", required=True)
    _add_score(sub)
    _add_transfer(sub)
    return ap


def main(argv=None) -> None:
    args, extra = build_parser().parse_known_args(argv)
    if extra:  # an unknown option is the subcommand's command-line mistake: its prefix, exit 2
        fail(args.command, f"unrecognized arguments: {' '.join(extra)} (see tst {args.command} --help)", 2)
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    args.func(args)


if __name__ == "__main__":
    main()
