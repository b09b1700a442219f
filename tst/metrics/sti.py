"""Style transfer intensity: direction-corrected Earth Mover's Distance (Mir et al. 2019 §4.2)."""

from __future__ import annotations

import numpy as np
import ot

from tst.metrics.base import MetricResult

VARIANT = ("mean direction-corrected EMD between style distributions of source and output "
           "(ordinal ground distance |i - j|; negative when P(target) decreased)")


def direction_corrected_emd(p_source, p_output, target: int) -> float:
    """STI(SC(x), SC(x')) = EMD(SC(x), SC(x')) with ground distance D_ij = |i - j| (ordinal styles),
    times -1 when SC(x')[target] < SC(x)[target] (Mir et al. 2019). For two styles it equals
    SC(x')[target] - SC(x)[target]."""
    p = np.asarray(p_source, dtype=np.float64)
    q = np.asarray(p_output, dtype=np.float64)
    p, q = p / p.sum(), q / q.sum()
    k = np.arange(len(p), dtype=np.float64)
    emd = float(ot.emd2(p, q, np.abs(k[:, None] - k[None, :])))
    return -emd if q[target] < p[target] else emd


def sti(sources, outputs, target_styles, classifier, name: str = "sti") -> MetricResult:
    """Mean over pairs of direction-corrected EMD between classifier.predict_proba of source and output."""
    if not (len(sources) == len(outputs) == len(target_styles)):
        raise ValueError("sources, outputs and target_styles must have the same length")
    if not outputs:
        return MetricResult(name, VARIANT, None, [], True, {"n": 0})

    def tok(xs):
        return [s.split() if isinstance(s, str) else list(s) for s in xs]

    ps = np.asarray(classifier.predict_proba(tok(sources)))
    qs = np.asarray(classifier.predict_proba(tok(outputs)))
    per = [direction_corrected_emd(p, q, int(t)) for p, q, t in zip(ps, qs, target_styles)]
    return MetricResult(name, VARIANT, float(np.mean(per)), per, True, {"n": len(per)})
