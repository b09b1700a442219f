"""Naturalness by adversarial classification (Mir et al. 2019 §4.4; their code/naturalness.py and utils.py).

Each system has its own classifier, trained to tell the system's inputs (human-written) from its outputs
(tst.evaluators.naturalness). Mir's corpus score is the mean over outputs of P(human | output)
(utils.calculate_corpus_level_scores); their human study compares each output with its input, so the
same classifier's P(human) of the inputs is scored too (`naturalness_inputs`) with, per sentence, which of
the two it finds more natural (Mir's generate_judgments; equal scores are no judgment).
"""

from __future__ import annotations

import numpy as np

from tst.metrics.base import Context, Metric, MetricResult
from tst.names import NATURALNESS_KINDS, naturalness_file


def _describe(model) -> str:
    what = getattr(model, "description", None) or type(model).__name__
    return f"{what} trained on the system's inputs (human) vs its outputs"


def _prob_human(model, sentences) -> np.ndarray:
    tokens = [s.split() if isinstance(s, str) else list(s) for s in sentences]
    p = np.asarray(model.prob_human(tokens), dtype=float).reshape(-1)
    if len(p) != len(sentences):
        raise ValueError(f"prob_human returned {len(p)} values for {len(sentences)} sentences")
    return p


def naturalness(outputs, model, name: str = "naturalness_lr", sources=None) -> MetricResult:
    """NT = (1/N) sum_i P(human | x'_i) (Mir et al.'s corpus score); per sentence P(human | x'_i).

    details: the share judged human (p > 0.5, the earlier form, not Mir's score) and, with `sources`, the
    counts of sentences whose output the classifier finds more / less natural than its input, and ties.
    """
    variant = (
        f"Mir et al. 2019: mean P(human) of outputs under a {_describe(model)}; an empty output is never "
        "judged human-written: P(human) = 0 (ours)"
    )
    if not outputs:
        return MetricResult(name, variant, None, [], True, {"n": 0})
    p = _prob_human(model, outputs)
    empty = np.array([not (o.split() if isinstance(o, str) else list(o)) for o in outputs], dtype=bool)
    p[empty] = 0.0
    details = {
        "n": len(outputs),
        "n_empty": int(empty.sum()),
        "share_judged_human": float((p > 0.5).mean()),
    }
    if sources is not None:
        q = _prob_human(model, sources)
        details.update(
            output_more_natural=int((p > q).sum()),
            input_more_natural=int((p < q).sum()),
            ties=int((p == q).sum()),
        )
    return MetricResult(name, variant, float(p.mean()), p.tolist(), True, details)


def naturalness_inputs(sources, model, name: str = "naturalness_lr_inputs") -> MetricResult:
    """Mean P(human | x_i) of the system's inputs under the same classifier as its outputs (Mir et al.'s
    input-vs-output comparison); per sentence P(human | x_i)."""
    variant = f"Mir et al. 2019: mean P(human) of the system's inputs under the {_describe(model)}"
    if not sources:
        return MetricResult(name, variant, None, [], True, {"n": 0})
    q = _prob_human(model, sources)
    return MetricResult(name, variant, float(q.mean()), q.tolist(), True, {"n": len(sources)})


# ---- registry rows (tst.metrics.registry): one classifier per system and kind ----


def _naturalness_file(kind: str):
    def files(system, options) -> tuple[str, ...]:
        return (naturalness_file(system, kind),) if system else ()

    return files


def _naturalness(kind: str):
    def compute(ctx: Context):
        return naturalness(
            ctx.outputs,
            ctx.load(naturalness_file(ctx.system, kind)),
            name=f"naturalness_{kind}",
            sources=ctx.sources,
        )

    return compute


def _naturalness_inputs(kind: str):
    def compute(ctx: Context):
        return naturalness_inputs(
            ctx.sources, ctx.load(naturalness_file(ctx.system, kind)), name=f"naturalness_{kind}_inputs"
        )

    return compute


ROWS = [
    *(
        Metric(
            f"naturalness_{kind}",
            f"Nat-{kind.upper()}",
            "P(human)",
            "fluency",
            True,
            170 + i,
            (),
            _naturalness(kind),
            inputs=("system",),
            more_evaluators=_naturalness_file(kind),
            note=naturalness_file("{system}", kind),
        )
        for i, kind in enumerate(NATURALNESS_KINDS)
    ),
    *(
        Metric(
            f"naturalness_{kind}_inputs",
            f"Nat-{kind.upper()}-inputs",
            "P(human)",
            "fluency",
            True,
            180 + i,
            (),
            _naturalness_inputs(kind),
            inputs=("system",),
            more_evaluators=_naturalness_file(kind),
            note=f"(the system's inputs) {naturalness_file('{system}', kind)}",
            vs_human=False,
        )
        for i, kind in enumerate(NATURALNESS_KINDS)
    ),
]
