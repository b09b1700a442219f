"""Style transfer intensity: direction-corrected Earth Mover's Distance (Mir et al. 2019 §4.2).

Ground distance as in Mir et al.'s code (passeul/style-transfer-model-evaluation,
code/style_transfer_intensity.py: `calculate_emd` passes `np.ones((N, N))` to pyemd, whose FastEMD moves no
mass from a bin to itself, so the cost is 1 between any two distinct styles and 0 within a style). With that
0/1 ground distance the EMD of two distributions is their total variation distance, 1/2 sum_i |p_i - q_i|,
computed here in closed form (tests check it against POT's emd2 with the same ground distance). For two styles
it equals |P'(target) - P(target)|."""

from __future__ import annotations

import numpy as np

from tst.metrics.base import Context, Metric, MetricResult
from tst.names import CLASSIFIERS

VARIANT = (
    "mean direction-corrected EMD between style distributions of source and output (Mir et al.'s "
    "ground distance: 1 between distinct styles; negative when P(target) decreased); an empty output is a "
    "failed transfer: its style distribution is all on a style other than the target (the lowest STI) (ours)"
)


def direction_corrected_emd(p_source, p_output, target: int) -> float:
    """STI(SC(x), SC(x')) = EMD(SC(x), SC(x')) with ground distance 1 between distinct styles, times -1 when
    SC(x')[target] < SC(x)[target] (Mir et al. 2019, `calculate_direction_corrected_emd`)."""
    p = np.asarray(p_source, dtype=np.float64)
    q = np.asarray(p_output, dtype=np.float64)
    p, q = p / p.sum(), q / q.sum()
    emd = 0.5 * float(np.abs(p - q).sum())
    return -emd if q[target] < p[target] else emd


def sti(sources, outputs, target_styles, classifier, name: str = "sti") -> MetricResult:
    """Mean over pairs of direction-corrected EMD between classifier.predict_proba of source and output."""
    if not (len(sources) == len(outputs) == len(target_styles)):
        raise ValueError("sources, outputs and target_styles must have the same length")
    if not outputs:
        return MetricResult(name, VARIANT, None, [], True, {"n": 0})

    def tok(xs):
        return [s.split() if isinstance(s, str) else list(s) for s in xs]

    from tst.metrics.acc import empty_mask, output_probs

    ps = np.asarray(classifier.predict_proba(tok(sources)))
    qs = output_probs(outputs, target_styles, classifier)  # an empty output: all mass off its target style
    per = [direction_corrected_emd(p, q, int(t)) for p, q, t in zip(ps, qs, target_styles)]
    details = {"n": len(per), "n_empty": int(empty_mask(outputs).sum())}
    return MetricResult(name, VARIANT, float(np.mean(per)), per, True, details)


# ---- registry row (tst.metrics.registry) ----


def _sti(ctx: Context):
    return sti(ctx.sources, ctx.outputs, ctx.targets, ctx.classifier(CLASSIFIERS["cnn"]))


ROWS = [Metric("sti", "STI", "EMD", "style", True, 130, (CLASSIFIERS["cnn"],), _sti)]
