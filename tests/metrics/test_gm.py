"""GM (Pang & Gimpel 2019, eq. 1) reproduces the GM column of Tables 2 and 3 from their Acc, Sim, PP."""

import math

import numpy as np
import pytest
import torch

from tst.metrics.gm import DEFAULT_T, gm, gm_array, gm_torch

# (model, Acc, Sim, PP, GM, decimals printed) transcribed from the paper text.
TABLE2_YELP = [
    ("M0", 0.818, 0.719, 37.3, 10.0, 1),
    ("M1", 0.819, 0.734, 26.3, 14.2, 1),
    ("M2", 0.813, 0.770, 36.4, 18.8, 1),
    ("M3", 0.807, 0.796, 28.4, 21.5, 1),
    ("M4", 0.798, 0.783, 39.7, 19.2, 1),
    ("M5", 0.804, 0.785, 27.1, 20.3, 1),
    ("M6", 0.805, 0.817, 43.3, 21.6, 1),
    ("M7", 0.818, 0.805, 29.0, 22.8, 1),
]
TABLE3_LITERATURE = [
    ("M0", 0.694, 0.728, 22.3, 8.81, 2),
    ("M1", 0.702, 0.747, 23.6, 11.7, 1),
    ("M2", 0.692, 0.781, 49.9, 12.8, 1),
    ("M3", 0.698, 0.754, 39.2, 12.0, 1),
    ("M4", 0.702, 0.757, 33.9, 12.8, 1),
    ("M5", 0.688, 0.753, 28.6, 11.8, 1),
    ("M6", 0.704, 0.794, 63.2, 12.8, 1),
    ("M7", 0.706, 0.768, 49.0, 12.8, 1),
]


@pytest.mark.parametrize("row", TABLE2_YELP, ids=lambda r: r[0])
def test_gm_reproduces_table2_to_printed_precision(row):
    _, acc, sim, pp, printed, decimals = row
    assert round(gm(acc, sim, pp), decimals) == pytest.approx(printed, abs=1e-9)


@pytest.mark.parametrize("row", TABLE2_YELP + TABLE3_LITERATURE, ids=lambda r: r[0])
def test_gm_within_rounding_of_printed_inputs(row):
    # Acc, Sim (3 decimals) and PP (1 decimal) are printed rounded: GM of the true values lies between
    # GM at the corners of the half-unit box (GM is monotone in each input on each side of PP=30).
    _, acc, sim, pp, printed, decimals = row
    corners = [
        gm(acc + da, sim + ds, pp + dp)
        for da in (-5e-4, 5e-4)
        for ds in (-5e-4, 5e-4)
        for dp in (-0.05, 0.05)
    ]
    half = 0.5 * 10**-decimals
    assert min(corners) - half <= printed <= max(corners) + half


def test_gm_hand_values():
    # M0 Yelp by hand: (18.8 * 0.9 * min(59.7, 74.3))^(1/3) = 1010.124^(1/3)
    assert gm(0.818, 0.719, 37.3) == pytest.approx(1010.124 ** (1 / 3), rel=1e-9)
    # PP below the crossover (97 + (-37)) / 2 = 30 uses the lower threshold: PP - t4 = 10 + 37
    assert gm(0.73, 0.81, 10.0) == pytest.approx((10 * 10 * 47) ** (1 / 3))
    # any factor at or below its threshold gives exactly 0
    assert gm(0.63, 0.9, 30.0) == 0.0
    assert gm(0.9, 0.9, 97.0) == 0.0
    assert gm(0.9, 0.9, -37.0) == 0.0


def test_vectorised_versions_match_scalar():
    rows = TABLE2_YELP + TABLE3_LITERATURE + [("z", 0.5, 0.9, 20.0, 0.0, 1)]
    acc, sim, pp = (np.array([r[i] for r in rows]) for i in (1, 2, 3))
    want = np.array([gm(a, s, p) for a, s, p in zip(acc, sim, pp)])
    assert want[-1] == 0.0
    np.testing.assert_allclose(gm_array(acc, sim, pp), want, rtol=1e-12)
    t = torch.tensor(DEFAULT_T, dtype=torch.float64, requires_grad=True)
    got = gm_torch(*(torch.tensor(x) for x in (acc, sim, pp)), t)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-9)
    got.sum().backward()
    assert torch.isfinite(t.grad).all()
    # d GM / d t1 for M0 Yelp = -GM / (3 * (100 Acc - t1)) (closed form), summed over rows where alive
    alive = want > 0
    dt1 = -(want[alive] / (3 * (100 * acc[alive] - DEFAULT_T[0]))).sum()
    assert t.grad[0].item() == pytest.approx(dt1, rel=1e-9)


def test_exponents_of_one_are_plain_gm():
    acc, sim, pp = torch.tensor([0.818]), torch.tensor([0.805]), torch.tensor([29.0])
    t = torch.tensor(DEFAULT_T)
    g2 = gm_torch(acc, sim, pp, t, alpha=torch.tensor([2.0, 1.0, 1.0, 1.0]))
    # doubling alpha1 multiplies the product by (100 Acc - t1) = 18.8
    assert g2.item() == pytest.approx(math.cbrt(18.8**2 * 9.5 * 66.0), rel=1e-5)
