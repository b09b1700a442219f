"""Learning aggregates from preference pairs: the hinge-trained t recovers a planted t."""

import numpy as np
import pytest
import torch

from tst.metrics.aggregate import learn_gm, learn_mlp, pair_agreement, score_gm
from tst.metrics.gm import gm_array

PLANTED = (60.0, 70.0, 100.0, -30.0)
START = (50.0, 60.0, 90.0, -20.0)


def planted_pairs(seed: int, n: int):
    """Random (acc, sim, pp) rewrites, paired and ordered by GM with the planted t; only pairs whose GM
    differ by >= 1 (the hinge margin) are kept, so the planted t has zero loss."""
    rng = np.random.default_rng(seed)

    def draw():
        return np.stack([rng.uniform(0.5, 1, n), rng.uniform(0.6, 1, n), rng.uniform(5, 120, n)], 1)

    x, y = draw(), draw()
    gx, gy = gm_array(*x.T, PLANTED), gm_array(*y.T, PLANTED)
    keep = np.abs(gx - gy) >= 1.0
    better = (gx > gy)[:, None]
    return np.where(better, x, y)[keep], np.where(better, y, x)[keep]


@pytest.fixture(scope="module")
def pairs():
    torch.set_num_threads(1)
    xp, xm = planted_pairs(0, 3000)
    h = len(xp) // 2
    return xp[:h], xm[:h], xp[h:], xm[h:]


def test_pair_agreement_counts():
    # wins on pairs 1 and 4, a tie on pair 2: strict 2/4 (Pang & Gimpel's share), tie rate 1/4
    r = pair_agreement([3, 2, 1, 5], [1, 2, 4, 0])
    assert r == {"n": 4, "agreement": 0.5, "ties": 1, "tie_rate": 0.25, "agreement_ties_half": 2.5 / 4}


def test_learned_t_recovers_planted(pairs):
    tr_p, tr_m, te_p, te_m = pairs
    assert len(tr_p) > 1000
    start = pair_agreement(score_gm(te_p, START), score_gm(te_m, START))["agreement"]
    assert start < 0.9  # the start is genuinely wrong
    r = learn_gm(tr_p, tr_m, t0=START, steps=1000)
    held = pair_agreement(score_gm(te_p, r["t"]), score_gm(te_m, r["t"]))
    assert held["agreement"] >= 0.99
    # the reported training agreement and loss are those of the returned t
    train = pair_agreement(score_gm(tr_p, r["t"]), score_gm(tr_m, r["t"]))["agreement"]
    assert r["train_agreement"] == pytest.approx(train)
    hinge = np.maximum(0, 1 - score_gm(tr_p, r["t"]) + score_gm(tr_m, r["t"])).mean()
    assert r["loss"] == pytest.approx(hinge)
    # t1..t3 within 1.5 points; t4 only matters for PP < (t3 + t4) / 2 = 35, so it is less pinned: 3.
    np.testing.assert_allclose(r["t"][:3], PLANTED[:3], atol=1.5)
    assert abs(r["t"][3] - PLANTED[3]) <= 3.0


def test_exponents_and_mlp_learn_the_planted_order(pairs):
    tr_p, tr_m, te_p, te_m = pairs
    r = learn_gm(tr_p, tr_m, t0=START, alpha=True, steps=800)
    assert all(a > 0 for a in r["alpha"])
    held = pair_agreement(score_gm(te_p, r["t"], r["alpha"]), score_gm(te_m, r["t"], r["alpha"]))
    assert held["agreement"] >= 0.97
    model, _ = learn_mlp(tr_p, tr_m, steps=600)
    held = pair_agreement(model.score(te_p), model.score(te_m))
    assert held["agreement"] >= 0.95
