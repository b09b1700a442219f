"""The request of `tst score`'s arguments (from_command_line), every default resolved once: the --config files
read once and checked against the workflow's schema and to define the dataset, the calibration file checked
before any metric runs, the word limit, the bootstrap options, the normalization, the preloaded source
embeddings. Each mistake is a RequestError carrying the command's exit code and a message naming the option
or file and the fix."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from tst import layout
from tst.metrics.registry import METRICS, ScoreOptions, files
from tst.scoring.request import RequestError, ScoreRequest


def from_command_line(args, dataset_dir: Path) -> ScoreRequest:
    """The request of `tst score`'s parsed arguments (tst.cli.score), every default resolved: the --config files
    read once (checked against the workflow's schema and to define the dataset), the calibration file checked,
    the word limit, the bootstrap options, the normalization, the preloaded source embeddings. RequestError with
    the exit code and the message naming the option or file."""
    from tst.metrics.gm import DEFAULT_T
    from tst.scoring.write import score_meta

    dataset = args.dataset or dataset_dir.name
    evaluators = Path(args.evaluators_dir) if args.evaluators_dir else dataset_dir / layout.EVALUATORS
    config = _config(args.config, dataset)
    options = _options(args, config, dataset, dataset_dir)
    styles = args.source_styles or [_style_of(p) for p in args.sources]
    request = ScoreRequest(
        args.sources,
        args.outputs,
        styles,
        meta=score_meta(dataset, args.system or "unnamed", args.split, args.checkpoint),
        evaluators=evaluators,
        references=args.references,
        lists=args.lists,
        lists_text=args.lists_text,
        options=options,
        only=args.metrics or None,
        gm_t=tuple(args.gm_t) if args.gm_t else DEFAULT_T,
        encoding_errors=args.encoding_errors,
        progress=not args.verbose and sys.stderr.isatty(),
    )
    _check_evaluators(request, args, dataset_dir)
    bpe = dataset_dir / layout.DATA / layout.BPE_MODEL  # a BPE dataset: its models read encoded text
    return replace(
        request,
        bpe=bpe if bpe.is_file() else None,
        calibration=_calibration(args.gm_calibration, dataset_dir),
        max_words=_max_words(args.max_words, config, dataset),
        ci=_ci(args, config),
        normalize=_normalization(args.normalize, config, dataset_dir, dataset),
        ner=_ner(args.normalize, config, dataset),
        sources_embedded=_source_embeddings(args.split, options, evaluators, config, dataset),
    )


# The scoring options `tst score` takes on its command line (the flag's dest); unset, each is the workflow's for
# the dataset in --config (tst.stages.score_options: score.<option>, the dataset's own cp_lexicon,
# evaluators.precision), else tst.metrics.registry.DEFAULT_OPTIONS'.
OPTION_FLAGS = ("cp_lexicon", "cp_seed", "sbert", "pp_count_eos", "precision")


def _options(args, config: dict | None, dataset: str, dataset_dir: Path):
    """The scoring options, resolved once (the file checks and the scorer read the same value): each flag given,
    else the workflow's option for the dataset in --config (tst.stages.score_options, as the score rules take
    it: the dataset's cp_lexicon, evaluators.precision, score.extra_metrics...), else the default; the
    references' release as _references_release finds it."""
    from tst.stages import score_options

    workflow = score_options(config, dataset) if config is not None else {}
    workflow.pop("references_release", None)  # the --references' own (_references_release)
    given = {k: getattr(args, k) for k in OPTION_FLAGS if getattr(args, k, None) is not None}
    try:
        return ScoreOptions.of(
            {**workflow, **given, "references_release": _references_release(args, dataset_dir)}
        )
    except (ValueError, TypeError) as e:
        raise RequestError(f"--config: score options of dataset {dataset}: {e}") from None


def _style_of(path: str) -> int:
    from tst.names import style_of_file

    style = style_of_file(path)
    if style is None:
        raise RequestError(
            f"cannot tell the source style of {path} from its name (it ends in neither .0/.1 nor "
            ".0.txt/.1.txt nor .0.raw.txt/.1.raw.txt): pass --source-styles"
        )
    return style


def _check_evaluators(request: ScoreRequest, args, dataset_dir: Path) -> None:
    """Without an evaluators folder only the evaluator-free metrics can be asked for (exit 2 naming the rest)."""
    if request.evaluators.is_dir():
        return
    keys = request.only if request.only is not None else METRICS
    options = request.options
    need = [k for k in keys if files(k, args.system, options)]
    if need:
        free = [k for k in METRICS if not files(k, args.system or "SYSTEM", options)]
        raise RequestError(
            f"no evaluators folder {request.evaluators} (--dataset-dir {dataset_dir}"
            f"{' --evaluators-dir ' + args.evaluators_dir if args.evaluators_dir else ''}) but "
            f"{', '.join(need)} need evaluators. Pass the dataset's results folder ({layout.root('<dataset>')}, "
            f"after its evaluators were built), or --metrics with evaluator-free ones only: {' '.join(free)}"
        )


def _calibration(given: str | None, dataset_dir: Path) -> dict | None:
    """The calibrated GM's thresholds: --gm-calibration, else the dataset's own file when it exists; a file that
    is not JSON or not of the calibration's layout is refused (exit 1) naming it."""
    from tst.io import read_json
    from tst.metrics.gm import check_calibration

    path = Path(given) if given else dataset_dir / layout.CALIBRATION_FILE
    if given and not path.is_file():
        raise RequestError(f"--gm-calibration {path}: no such file")
    if not path.is_file():
        return None
    try:
        return check_calibration(read_json(path), path)
    except json.JSONDecodeError as e:
        raise RequestError(
            f"{path}, line {e.lineno}: not JSON ({e.msg}); rebuild it (rule gm_calibration)", 1
        ) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise RequestError(str(e), 1) from None


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


def _max_words(given: int | None, config: dict | None, dataset: str) -> int:
    """--max-words, else the word limit of the dataset in --config (tst.stages.score_max_words)."""
    from tst.stages import score_max_words

    if given is not None:
        if given < 1:
            raise RequestError(f"--max-words {given}: must be at least 1")
        return given
    return score_max_words(config, dataset)


def _ci(args, config: dict | None) -> dict | None:
    """The bootstrap options of --ci (None without it): --ci-resamples / --ci-seed over the config's
    score.bootstrap (--config) over tst.bootstrap.DEFAULTS."""
    if not args.ci:
        return None
    from tst.stages import bootstrap_options

    try:
        opt = bootstrap_options(config)
    except ValueError as e:
        raise RequestError(f"--config: score.bootstrap: {e}") from None
    if args.ci_resamples is not None:
        if args.ci_resamples < 1:
            raise RequestError(f"--ci-resamples {args.ci_resamples}: must be at least 1")
        opt["n_resamples"] = args.ci_resamples
    if args.ci_seed is not None:
        opt["seed"] = args.ci_seed
    return opt


def _normalization(normalize: bool, config: dict | None, dataset_dir: Path, dataset: str) -> dict:
    """The request's normalize: the dataset's `normalize:` block and where it was read (--config, else the
    data/report.json prepare_data wrote, else the schema's default), or None with --no-normalize; and the NER
    placeholders the corpus writes (tst.nlp.ner's default labels, the --config's ner.labels, the placeholders
    data/report.json counts), kept as written."""
    from tst.data.normalize import normalize_settings
    from tst.io import read_json
    from tst.nlp.ner import DEFAULT_LABELS

    if not normalize:
        return {"normalize": None, "from": None}
    placeholders = set(DEFAULT_LABELS.values())
    if config is not None:
        ds = config["datasets"][dataset]
        placeholders |= set(((ds.get("ner") or {}).get("labels") or {}).values())
        block, where = ds.get("normalize") or {}, "--config"
    else:
        report = dataset_dir / layout.DATA / layout.DATA_REPORT
        report = read_json(report) if report.is_file() else {}
        placeholders |= set((report.get("ner") or {}).get("entities") or {})
        block, where = report.get("normalize"), f"{layout.DATA}/{layout.DATA_REPORT}"
        if block is None:  # the schema's defaults: lowercase, numbers kept
            block, where = normalize_settings(None), "default (lowercase)"
    return {"normalize": block, "from": where, "placeholders": sorted(placeholders)}


def _ner(normalize: bool, config: dict | None, dataset: str) -> dict | None:
    """The NER masking of the sources and references (tst.scoring.read): the dataset's `ner:` block in --config
    when enabled (its labels, the config's `nlp:` backend), as prepare_data masks the corpus; None without
    --config, with NER off or with --no-normalize (the lines as given). Outputs are scored as given, as the
    workflow scores a published system's outputs (their placeholders kept as written: _normalization)."""
    if not normalize or config is None:
        return None
    from tst.config_files import dataset_settings
    from tst.data.prepare import DEFAULT_NER_LABELS
    from tst.defaults import schema_default

    block, nlp = dataset_settings(config, dataset)
    ner = block.get("ner") or {}
    if not ner.get("enabled", schema_default("datasets", "any", "ner", "enabled")):
        return None
    return {"labels": dict(ner.get("labels") or DEFAULT_NER_LABELS), "nlp": dict(nlp)}


def _source_embeddings(
    split: str, options, evaluators: Path, config: dict | None, dataset: str
) -> list[Path]:
    """The sentence embeddings of the split's sources the workflow computed (rule embed_sources), which its
    score jobs preload (tst.metrics.sbert.start_run): read here too, so both routes batch alike and give the
    same numbers. Only when sbert is on, the files exist and the precision is the workflow's (--config's
    evaluators.precision, else config.yaml's); else none (the sources are encoded here)."""
    from tst.metrics.sbert import scoring_bf16
    from tst.names import sbert_sources_file
    from tst.stages import score_options

    found = [evaluators / sbert_sources_file(split, ext) for ext in ("npy", "txt")]
    if not options.sbert or not all(f.is_file() for f in found):
        return []
    workflow = score_options(config, dataset) if config else {}
    return found if scoring_bf16(workflow) == scoring_bf16(options) else []


def _config(paths, dataset: str) -> dict | None:
    """The merged --config files (None without them), read once, checked against the workflow's schema and to
    define `dataset`; RequestError (exit 2) naming the fault."""
    if not paths:
        return None
    import yaml

    from tst.config_files import dataset_settings, read_configs

    try:
        config = read_configs(paths)
        dataset_settings(config, dataset)
    except (ValueError, yaml.YAMLError) as e:
        raise RequestError(str(e)) from None
    return config
