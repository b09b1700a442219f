"""Score one system's transfers with every metric of the registry (tst.metrics.registry) whose evaluator is
available, on aligned lists in memory: score_system, one loop over the registry's computed metrics, each
evaluator file loaded once (tst.scoring.evaluator_files.Evaluators); a metric that cannot be computed (a missing
input or file, a broken file, out of memory) is skipped with its reason (Scores.skipped)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from tst.io import InputError
from tst.layout import BPE_MODEL
from tst.metrics.registry import (
    INPUTS,
    METRICS,
    Context,
    ScoreOptions,
    Skip,
    check_keys,
    scored_keys,
)
from tst.scoring.evaluator_files import Evaluators
from tst.scoring.memory import free_memory, is_out_of_memory, out_of_memory_reason

log = logging.getLogger(__name__)


class Scores(dict):
    """dict[str, MetricResult] plus what was skipped (metric -> reason) and the evaluator files used."""

    def __init__(self):
        super().__init__()
        self.skipped: dict[str, str] = {}
        self.evaluators: dict[str, Path] = {}  # file name relative to the evaluators dir -> path
        self.units: dict[str, dict] = {}  # classifier / LM file -> units fed and their <unk> count
        self.n_empty: int | None = None  # outputs with no token (set by score_system)


def _why_not(metric, ctx: Context, ev: Evaluators) -> str | None:
    """Why `metric` cannot be computed here (a missing input or evaluator file), or None."""
    for name in metric.inputs:
        if getattr(ctx, name) is None:
            return INPUTS[name]
    missing = [f for f in metric.files(ctx.system, ctx.options) if not ev.has(f)]
    return f"missing evaluator file(s): {', '.join(missing)}" if missing else None


def score_system(
    sources,
    outputs,
    source_styles,
    evaluators,
    references=None,
    lists=None,
    *,
    system: str | None = None,
    options: ScoreOptions | dict | None = None,
    only=None,
    progress: bool = False,
) -> Scores:
    """Every computed (non-derived) metric of the registry that is on (by default, or named in the option
    extra_metrics; tst.metrics.registry.scored_keys) whose inputs and evaluator files exist; the rest go to
    `.skipped` with a reason.

    sources, outputs: aligned lists of tokenized strings; source_styles: the style (0/1) of each source
    (target = 1 - style); evaluators: an Evaluators (reuse one across calls) or the evaluators folder;
    references: per sentence a list of reference strings (None where a sentence has none), or None; lists:
    per-source attribute lists for attribute hit (Yu et al. 2021), or None; system: names the naturalness
    classifiers (tst.names.naturalness_file); options: the scoring options, a ScoreOptions (resolved once by the
    caller and passed down as it is) or their dict ({"cp_lexicon": "vader" | "style_lexicon" | "none",
    "cp_seed": int, ...}, over tst.metrics.registry.DEFAULT_OPTIONS; resolved here); only: optional collection of metric keys
    (instead of those on, off-by-default ones included);
    progress: a progress bar on stderr (`tst score` on a terminal). An evaluator file that cannot be loaded
    skips the metrics that need it (reason in `.skipped`); the others are computed.
    """
    n = len(outputs)
    if n == 0:
        raise InputError("no sentences to score (no outputs)")
    if len(sources) != n or len(source_styles) != n:
        raise InputError(f"{len(sources)} sources, {n} outputs, {len(source_styles)} styles: must be equal")
    for what, given in (("references", references), ("lists", lists)):
        if given is not None and len(given) != n:
            raise InputError(f"{len(given)} {what} for {n} outputs")
    if only is not None:
        only = set(check_keys(only))
    ev = evaluators if isinstance(evaluators, Evaluators) else Evaluators(evaluators)
    scores = Scores()
    scores.n_empty = sum(1 for o in outputs if not (o.split() if isinstance(o, str) else list(o)))

    def load(name: str):
        obj = ev.load(name)
        scores.evaluators[name] = ev.path(name)
        return obj

    for obj in ev.units().values():
        obj.reset_counts()
    ctx = Context(
        list(sources),
        list(outputs),
        list(source_styles),
        load,
        references,
        lists,
        system,
        ScoreOptions.of(options),
        METRICS,
    )
    from tqdm import tqdm

    if only is None:
        keys = scored_keys(ctx.options)
    else:  # asked for by name: also a metric off by default
        keys = [k for k, m in METRICS.items() if not m.derived and k in only]
    bar = tqdm(keys, desc="tst score", unit="metric", file=sys.stderr, disable=not progress, leave=False)
    for key in bar:
        metric = METRICS[key]
        bar.set_postfix_str(key)
        why = _why_not(metric, ctx, ev)
        if why is None:
            try:
                scores[key] = ctx.result(key)
            except Skip as e:
                why = str(e)
            # out of memory: this metric is skipped with the reason, the others go on
            except (MemoryError, RuntimeError) as e:
                if not is_out_of_memory(e):
                    raise
                free_memory()
                why = out_of_memory_reason(e)
        if why is None:
            log.info("%s: %s", key, scores[key].score)
        else:
            scores.skipped[key] = why
            log.warning("skipped %s: %s", key, why)
    for name, obj in ev.units().items():
        if name in scores.evaluators:
            scores.units[name] = obj.counts()
            log.info("%s read %s", name, scores.units[name])
    if any(u["units"] == "bpe" for u in scores.units.values()):
        scores.evaluators[BPE_MODEL] = ev.bpe
    return scores
