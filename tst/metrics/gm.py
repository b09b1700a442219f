"""Adjusted geometric mean GM_t of Acc, Sim and PP (Pang & Gimpel 2019, eq. 1).

    GM_t(q) = ([100 Acc - t1]_+ * [100 Sim - t2]_+ * min{[t3 - PP]_+, [PP - t4]_+})^(1/3)

Scales: `acc` and `sim` are fractions in [0, 1] exactly as eq. 1 and Table 2 print them (0.818, 0.719);
the 100x happens here. `pp` is a raw perplexity (37.3). t4 < 0 punishes abnormally small perplexities.
The same formula serves a corpus (corpus Acc, mean Sim, corpus PP, as in Table 2) or one sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tst.metrics.base import MetricResult

if TYPE_CHECKING:  # torch is imported by gm_torch only: the scorer and the report stay torch-free
    import torch

DEFAULT_T = (63.0, 71.0, 97.0, -37.0)  # Pang & Gimpel's t learned from 300 human preferences (Sec. 3.3)


def gm(acc: float, sim: float, pp: float, t=DEFAULT_T) -> float:
    """Eq. 1 for one sentence or one corpus (acc, sim in [0, 1]; pp raw)."""
    t1, t2, t3, t4 = t
    a = max(100.0 * acc - t1, 0.0)
    s = max(100.0 * sim - t2, 0.0)
    p = min(max(t3 - pp, 0.0), max(pp - t4, 0.0))
    return float((a * s * p) ** (1.0 / 3.0))


def gm_thresholds(t=DEFAULT_T) -> tuple[float, float, float, float]:
    """t as four floats (a config may give ints; the variant string always prints floats)."""
    t = tuple(float(x) for x in t)
    if len(t) != 4:
        raise ValueError(f"GM needs four thresholds t1..t4, not {list(t)}")
    return t


def gm_result(acc: float, sim: float, pp: float, t=DEFAULT_T) -> MetricResult:
    """The score-file entry `gm`: eq. 1 on a corpus' Acc, Sim and PP (joint LM) with thresholds t."""
    t = gm_thresholds(t)
    return MetricResult(
        "gm",
        f"Pang & Gimpel 2019 eq. 1 on corpus Acc, Sim, PP (joint LM), t={list(t)}",
        float(gm(acc, sim, pp, t=t)),
        [],
        True,
        {"t": list(t)},
    )


def gm_array(acc, sim, pp, t=DEFAULT_T) -> np.ndarray:
    """Eq. 1 elementwise over arrays (numpy)."""
    t1, t2, t3, t4 = t
    acc, sim, pp = (np.asarray(x, dtype=float) for x in (acc, sim, pp))
    a = np.maximum(100.0 * acc - t1, 0.0)
    s = np.maximum(100.0 * sim - t2, 0.0)
    p = np.minimum(np.maximum(t3 - pp, 0.0), np.maximum(pp - t4, 0.0))
    return np.cbrt(a * s * p)


def gm_torch(
    acc: torch.Tensor, sim: torch.Tensor, pp: torch.Tensor, t: torch.Tensor, alpha: torch.Tensor | None = None
) -> torch.Tensor:
    """Eq. 1 in torch, differentiable in t (and in the per-factor exponents alpha of Pang 2019, Sec. 4.1):

        G_{t,alpha} = ([100 Acc - t1]_+^a1 * [100 Sim - t2]_+^a2 * min{[t3 - PP]_+^a3, [PP - t4]_+^a4})^(1/3)

    alpha=None means all exponents 1 (plain GM; values equal gm_array). Where a factor is <= 0 the result
    is exactly 0 with zero gradient, as with [.]_+; factors are clamped away from 0 only inside the
    unused branch so no NaN gradient leaks from x^(1/3) or x^a at 0.
    """
    import torch

    tiny = 1e-12
    a = 100.0 * acc - t[0]
    s = 100.0 * sim - t[1]
    hi = t[2] - pp
    lo = pp - t[3]
    alive = (a > 0) & (s > 0) & (hi > 0) & (lo > 0)
    a, s, hi, lo = (x.clamp_min(tiny) for x in (a, s, hi, lo))
    if alpha is not None:
        a, s, hi, lo = a ** alpha[0], s ** alpha[1], hi ** alpha[2], lo ** alpha[3]
    g = (a * s * torch.minimum(hi, lo)) ** (1.0 / 3.0)
    return torch.where(alive, g, torch.zeros_like(g))
