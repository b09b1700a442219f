"""The Python API (tst.__all__ lists its public names): score_texts, `tst score` from Python on texts in memory,
and ScoreResult, what it returns.

score_texts goes through `tst score` itself: its arguments become `tst score`'s command line, parsed by the
command's own parser (tst.cli.score: every default), the request built and checked by
tst.scoring.arguments.from_command_line (the normalization, the --config's dataset settings, the calibration,
the preloaded source embeddings) and scored by tst.scoring.run.score. So a notebook gets the numbers, the JSON
and the signature `tst score` prints for the same texts written to files.

Cheap to import (`import tst` loads this module on first use of a name; no torch here)."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType


@dataclass(frozen=True)
class ScoreResult:
    """What score_texts returns. scores: metric key -> corpus score (None where undefined), in the registry's
    order; signature: the one-line signature (tst.signature; put it beside the numbers); signatures: metric
    key -> that metric's own signature; skipped: metric key -> why it was not computed; warnings: what was not
    scored as given (`tst score`'s warnings); json: the score object `tst score` prints (intervals, variants,
    evaluators, counts), a plain dict."""

    scores: Mapping
    signature: str
    signatures: Mapping
    skipped: Mapping
    warnings: tuple
    json: dict

    @classmethod
    def of(cls, obj: dict) -> ScoreResult:
        from tst.scoring.write import coverage_warnings

        metrics = obj["metrics"]
        return cls(
            MappingProxyType({k: m["score"] for k, m in metrics.items()}),
            obj["signature"]["line"],
            MappingProxyType({k: m["signature"] for k, m in metrics.items() if "signature" in m}),
            MappingProxyType(dict(obj["skipped"])),
            tuple(coverage_warnings(obj)),
            obj,
        )


def score_texts(
    sources: Sequence[str],
    outputs: Sequence[str],
    styles: Sequence[int] | int,
    dataset_dir,
    *,
    metrics: Sequence[str] | None = None,
    references: Sequence | None = None,
    lists: Sequence | None = None,
    config=None,
    dataset: str | None = None,
    system: str | None = None,
    split: str = "test",
    checkpoint: str = "final",
    precision: str | None = None,
    cp_lexicon: str | None = None,
    sbert: bool | None = None,
    normalize: bool = True,
    ci: bool = True,
    ci_resamples: int | None = None,
    ci_seed: int | None = None,
    gm_t: Sequence[float] | None = None,
    gm_calibration=None,
    max_words: int | None = None,
    evaluators_dir=None,
) -> ScoreResult:
    """Score `outputs` (one string per sentence) against their `sources` as `tst score` does, with the
    evaluators of `dataset_dir` (a run's results/<dataset> folder).

    styles: each source's style, 0 or 1 (the target is 1 - style), or one style for all. references: per
    sentence its human reference(s), a string, a list of strings or None (matched on the source text, as `tst
    score --references`). lists: per sentence its attribute list (attribute hit; `tst score --lists`). config:
    the config file(s) defining the dataset, or a config dict: scored as the workflow scores that dataset (its
    scoring options, normalization, NER masking, word limit; `tst score --config`). metrics: these keys only.
    The other arguments are `tst score`'s options of the same name (None: its default). A mistake in the
    arguments or the texts raises tst.io.InputError (a ValueError) naming it."""
    from tst.cli import build_parser
    from tst.cli.checks import dataset_root
    from tst.cli.score import scored

    n = len(outputs)
    per_style = [int(styles)] * n if isinstance(styles, int) else [int(s) for s in styles]
    _check_aligned(sources, outputs, per_style, references, lists)
    with tempfile.TemporaryDirectory(prefix="tst-score-") as tmp:
        folder = Path(tmp)
        argv = ["score", "--dataset-dir", str(dataset_dir)]
        argv += _text_files(folder, sources, outputs, per_style, references, lists)
        if config is not None:
            argv += ["--config", *_config_files(folder, config)]
        options = {
            "--metrics": list(metrics) if metrics is not None else None,
            "--dataset": dataset,
            "--system": system,
            "--split": split,
            "--checkpoint": checkpoint,
            "--precision": precision,
            "--cp-lexicon": cp_lexicon,
            "--ci-resamples": ci_resamples,
            "--ci-seed": ci_seed,
            "--gm-t": list(gm_t) if gm_t is not None else None,
            "--gm-calibration": gm_calibration,
            "--max-words": max_words,
            "--evaluators-dir": evaluators_dir,
        }
        for flag, value in options.items():
            if value is not None:
                argv += [flag, *map(str, value)] if isinstance(value, list) else [flag, str(value)]
        if sbert is not None:
            argv.append("--sbert" if sbert else "--no-sbert")
        argv += [] if normalize else ["--no-normalize"]
        argv += [] if ci else ["--no-ci"]
        args = build_parser().parse_args(argv)
        _, obj = scored(args, dataset_root("score", str(dataset_dir)))
    return ScoreResult.of(obj)


def _one_line(text, what: str, i: int) -> str:
    from tst.io import InputError

    if not isinstance(text, str):
        raise InputError(f"{what} {i}: not a string ({type(text).__name__})")
    if "\n" in text or "\r" in text:
        raise InputError(f"{what} {i}: holds a line break; give one sentence per string")
    return text


def _check_aligned(sources, outputs, styles, references, lists) -> None:
    from tst.io import InputError

    n = len(outputs)
    for what, given in (
        ("sources", sources),
        ("styles", styles),
        ("references", references),
        ("lists", lists),
    ):
        if given is not None and len(given) != n:
            raise InputError(f"{len(given)} {what} for {n} outputs: give one per output")
    if n == 0:
        raise InputError("no sentences to score (no outputs)")
    bad = [s for s in styles if s not in (0, 1)]
    if bad:
        raise InputError(f"a source style must be 0 or 1, not {bad[0]!r}")


def _text_files(folder: Path, sources, outputs, styles, references, lists) -> list[str]:
    """`tst score`'s file options for the texts, written under `folder`: one source and one output file per run
    of consecutive sentences of one style (so the sentences keep their order), a references file of
    source<TAB>reference lines and the attribute lists aligned with the sources."""
    import json

    from tst.io import InputError, write_lines

    runs: list[tuple[int, int]] = []  # (style, first sentence) of each run of one style
    for i, style in enumerate(styles):
        if not runs or runs[-1][0] != style:
            runs.append((style, i))
    bounds = [start for _, start in runs] + [len(styles)]
    argv = {"--sources": [], "--outputs": [], "--source-styles": [], "--lists": []}
    for k, (style, start) in enumerate(runs):
        end = bounds[k + 1]
        for flag, texts in (("--sources", sources), ("--outputs", outputs)):
            path = folder / f"{flag[2:]}.{k}.txt"
            write_lines(path, [_one_line(texts[i], flag[2:-1], i) for i in range(start, end)])
            argv[flag].append(str(path))
        argv["--source-styles"].append(str(style))
        if lists is not None:
            path = folder / f"attributes.{k}.jsonl"
            write_lines(path, [json.dumps({"independent": list(lists[i] or [])}) for i in range(start, end)])
            argv["--lists"].append(str(path))
    if references is not None:
        rows = {}
        for i, refs in enumerate(references):
            refs = [refs] if isinstance(refs, str) else list(refs or [])
            cells = [_one_line(r, "reference of sentence", i) for r in refs if r.strip()]
            if any("\t" in c for c in cells):
                raise InputError(f"reference of sentence {i}: holds a tab")
            if cells:
                rows.setdefault("\t".join([sources[i], *cells]), None)
        if rows:
            write_lines(folder / "references.tsv", list(rows))
            argv["--references"] = [str(folder / "references.tsv")]
    return [x for flag, values in argv.items() if values for x in (flag, *values)]


def _config_files(folder: Path, config) -> list[str]:
    """--config's files: the paths given, or a config dict written as YAML."""
    if isinstance(config, Mapping):
        import yaml

        path = folder / "config.yaml"
        path.write_text(yaml.safe_dump(dict(config)), encoding="utf-8")
        return [str(path)]
    if isinstance(config, (str, Path)):
        return [str(config)]
    return [str(p) for p in config]
