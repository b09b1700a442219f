"""The metric registry: every metric the scorer computes, the report prints and the human study correlates,
collected from the rows (tst.metrics.base.Metric: key, label, unit, decimals, aspect, direction, evaluator
files, how it is computed) each metric module of tst/metrics/ declares in its ROWS.

A new metric = its module in tst/metrics/ (its function and its ROWS) + its test. The scorer (tst.scoring)
loops over METRICS; the report takes labels, units, decimals and the column order from it; the workflow's
score rule declares its inputs with evaluator_files(); tst.human.correlation takes the metric -> human-aspect
mapping from it.

Cheap to import: no torch, gensim, ot, nltk, sacrebleu or pandas here or at the top of a metric module (each
imports them when it computes).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping

import tst.metrics
from tst.metrics.base import (  # noqa: F401 (re-exported: the registry's public names)
    ASPECTS,
    CP_LEXICONS,
    DEFAULT_OPTIONS,
    HUMAN_ASPECT,
    IDF,
    INPUTS,
    SCORE_OPTIONS,
    STYLE_LEXICON,
    Context,
    Metric,
    OncePerInput,
    ScoreOptions,
    Skip,
)
from tst.metrics.gm import GM_CONTENT  # noqa: F401 (re-exported)
from tst.names import EVALUATOR_FILES

# tst score cuts a line to its word limit (tst.stages.score_max_words) and to SCORE_CHARS_PER_WORD x that many
# characters (tst.scoring.read.cut_words): a 1 MB token without a space is one word but 1,000,000 BPE pieces
# (sentencepiece falls back to characters) for the classifiers and LMs of a BPE dataset. A normal line never
# comes near (Yelp's 15 words: ~80 characters; the limit there: 1,200).
SCORE_CHARS_PER_WORD = 20

# Modules of tst/metrics/ that declare no metric and are not imported here (aggregate: torch, pandas).
NOT_METRICS = ("aggregate", "base", "registry")


def collect_rows() -> list[Metric]:
    """The ROWS of every module of tst/metrics/ (but NOT_METRICS), sorted by their `order`; a key or an
    order given twice is an error."""
    rows = []
    for module in sorted(m.name for m in pkgutil.iter_modules(tst.metrics.__path__)):
        if module not in NOT_METRICS:
            rows += getattr(importlib.import_module(f"tst.metrics.{module}"), "ROWS", [])
    for what in ("key", "order"):
        values = [getattr(m, what) for m in rows]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"metric {what}s declared twice in tst/metrics/*.py ROWS: {twice}")
    return sorted(rows, key=lambda m: m.order)


METRICS: dict[str, Metric] = {m.key: m for m in collect_rows()}
ORDER = list(METRICS)  # canonical column order of the metric tables


def order_key(key: str) -> tuple[int, str]:
    """Sort key: registry order, then unknown keys by name."""
    return (ORDER.index(key) if key in METRICS else len(ORDER), key)


def check_keys(keys) -> list[str]:
    unknown = [k for k in keys if k not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric keys {unknown}; known: {', '.join(METRICS)}")
    return list(keys)


def scored_keys(options: Mapping | None = None) -> list[str]:
    """The computed (not derived) metrics scored when none are asked for by name: those on by default and
    those the scoring option extra_metrics names (keys checked here), in registry order."""
    extra = check_keys(ScoreOptions.of(options).extra_metrics)
    return [k for k, m in METRICS.items() if not m.derived and (m.default or k in extra)]


def files(key: str, system: str | None = None, options: Mapping | None = None) -> tuple[str, ...]:
    """Evaluator files metric `key` needs with this system name and these options (a derived metric: those
    of its factors)."""
    m = METRICS[key]
    if m.derived:
        return tuple(dict.fromkeys(f for k in m.derived_from for f in files(k, system, options)))
    return m.files(system, options)


def evaluator_files(keys=None, *, system: str | None = None, options: Mapping | None = None) -> list[str]:
    """The evaluator files (relative to the evaluators folder) the metrics `keys` (default: all) need, each
    once, in the order of tst.names.EVALUATOR_FILES then any others (naturalness files, only with a
    system name). What the workflow's score rule declares as inputs."""
    keys = check_keys(METRICS if keys is None else keys)
    found = dict.fromkeys(f for k in keys for f in files(k, system, options))
    return sorted(
        found, key=lambda f: EVALUATOR_FILES.index(f) if f in EVALUATOR_FILES else len(EVALUATOR_FILES)
    )


class ScoreMetrics(dict):
    """A score file's "metrics" dict (key -> {"score": ..., "variant": ..., ...}) with `.skipped`: the derived
    metrics that could not be computed, key -> reason."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.skipped: dict[str, str] = {}


def add_derived(metrics: dict, gm_t=None, calibration: dict | None = None) -> ScoreMetrics:
    """`metrics` (a score file's "metrics" dict) with every derived metric (re)computed from the stored
    corpus scores of its factors, in registry order; gm_t = Pang & Gimpel's GM thresholds (default theirs,
    for gm_pg); calibration = the dataset's calibrated GM thresholds (tst.metrics.gm.calibrate, for gm). A
    derived metric whose factor or thresholds are missing is left out (a stale value is dropped) and its
    reason goes to `.skipped`."""
    if gm_t is None:
        from tst.metrics.gm import DEFAULT_T

        gm_t = DEFAULT_T
    out = dict(metrics)
    skipped = {}
    for key, m in METRICS.items():
        if not m.derived:
            continue
        need = [k for k in m.derived_from if (metrics.get(k) or {}).get("score") is None]
        if need:
            out.pop(key, None)
            skipped[key] = f"needs {', '.join(need)}"
            continue
        try:
            out[key] = m.derive(
                {k: float(metrics[k]["score"]) for k in m.derived_from}, gm_t, calibration
            ).to_json()
        except Skip as e:
            out.pop(key, None)
            skipped[key] = str(e)
    result = ScoreMetrics({k: out[k] for k in sorted(out, key=order_key)})
    result.skipped = skipped
    return result


def help_lines() -> list[str]:
    """One line per metric for `tst score --help`: key, label, evaluator files / inputs."""
    flags = {"references": "with --references", "lists": "with --lists", "system": "with --system"}
    lines = []
    for key, m in METRICS.items():
        what = (
            ", ".join(m.evaluators)
            if m.evaluators
            else ("from " + ", ".join(m.derived_from) if m.derived else "")
        )
        needs = [flags[i] for i in m.inputs]
        parts = [p for p in (what, m.note, f"({'; '.join(needs)})" if needs else "") if p]
        lines.append(f"  {key:<19} {m.label:<15} {' '.join(parts) or '(always)'}")
    return lines
