"""Naturalness by adversarial classification (Mir et al. 2019 §4.4)."""

from __future__ import annotations

import numpy as np

from tst.metrics.base import MetricResult


def naturalness(outputs, model, name: str = "naturalness_lr",
                variant: str = "share of outputs the adversarial classifier takes for human-written (p > 0.5)",
                ) -> MetricResult:
    """NT = (1/N) sum_i [p_human(x'_i) > 0.5] (Mir et al. 2019, adversarial classifiers for naturalness).

    `model.prob_human(sentences)` gives P(human-written | x'); per sentence the probability itself is kept.
    """
    if not outputs:
        return MetricResult(name, variant, None, [], True, {"n": 0})
    tokens = [s.split() if isinstance(s, str) else list(s) for s in outputs]
    p = np.asarray(model.prob_human(tokens), dtype=float).reshape(-1)
    if len(p) != len(outputs):
        raise ValueError(f"prob_human returned {len(p)} values for {len(outputs)} outputs")
    return MetricResult(name, variant, float((p > 0.5).mean()), p.tolist(), True,
                        {"n": len(outputs), "mean_prob_human": float(p.mean())})
