"""Share of distinct outputs: a collapsed system (one or a few outputs for every input) shows at a glance."""

from __future__ import annotations

from tst.metrics.base import Context, Metric, MetricResult

VARIANT = "distinct output strings / outputs (both styles pooled; tokens joined by one space) (ours)"


def distinct(outputs, name: str = "distinct") -> MetricResult:
    """The share of distinct outputs (word-level sentences or token lists) among all a system's outputs; also
    the trainer's checkpoint diagnostic dev_distinct (tst.train.trainer.distinct_share)."""
    flat = [" ".join(o.split() if isinstance(o, str) else o) for o in outputs]
    n_distinct = len(set(flat))
    score = n_distinct / len(flat) if flat else None
    return MetricResult(name, VARIANT, score, [], True, {"n": len(flat), "n_distinct": n_distinct})


# ---- registry row (tst.metrics.registry) ----


def _distinct(ctx: Context):
    return distinct(ctx.outputs)


ROWS = [
    Metric("distinct", "distinct", "share of outputs", "overall", True, 200, (), _distinct, vs_human=False)
]
