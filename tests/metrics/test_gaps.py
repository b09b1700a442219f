"""Gaps a mutation check of the metric tests found: GM wiring with every factor above its threshold, the Acc
tie rule, the hinge-minimising choice of t, the human-rating path on a small rated fixture, the naturalness
classifier's files."""

import numpy as np
import pytest
import torch
from test_ratings import write_fixture

from tst import rule_inputs
from tst.human.aggregate import learn_aggregate
from tst.io import write_lines
from tst.metrics.acc import accuracy, target_probability
from tst.metrics.aggregate import learn_gm, learn_gm_multistart, pair_agreement, score_gm, select_fit
from tst.metrics.registry import add_derived


def test_gm_uses_acc_sim_pp_joint_and_the_given_t():
    # every factor above its threshold, so each one matters; pp_target and transfer strength are decoys
    m = {
        "acc": {"score": 0.8},
        "sim": {"score": 0.9},
        "pp_joint": {"score": 40.0},
        "pp_target": {"score": 10.0},
        "transfer_strength": {"score": 0.1},
    }
    # eq. 1 by hand, t = (63, 71, 97, -37): ((80 - 63) (90 - 71) min(97 - 40, 40 + 37))^(1/3)
    assert add_derived(m)["gm_pg"]["score"] == pytest.approx((17 * 19 * 57) ** (1 / 3))
    # another t is honoured: ((80 - 50) (90 - 60) min(80 - 40, 40 + 10))^(1/3)
    assert add_derived(m, (50, 60, 80, -10))["gm_pg"]["score"] == pytest.approx((30 * 30 * 40) ** (1 / 3))


class _Fixed:
    def __init__(self, p1):
        self.p1 = p1

    def predict_proba(self, sentences):
        return np.array([[1 - p, p] for p in self.p1[: len(sentences)]])


def test_acc_tie_goes_to_style_0_and_acc_prob_is_the_target_probability():
    clf = _Fixed([0.5, 0.5, 0.7, 0.2])
    # P = (0.5, 0.5): argmax picks style 0, right for target 0, wrong for target 1
    r = accuracy(["a", "b", "c", "d"], [0, 1, 1, 1], clf)
    assert r.per_sentence == [1.0, 0.0, 1.0, 0.0] and r.score == 0.5
    p = target_probability(["a", "b", "c", "d"], [0, 1, 1, 1], clf)
    assert p.per_sentence == pytest.approx([0.5, 0.5, 0.7, 0.2]) and p.score == pytest.approx(1.9 / 4)


def test_learned_t_is_the_hinge_minimiser():
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    x = np.stack([rng.uniform(0.6, 1, 200), rng.uniform(0.7, 1, 200), rng.uniform(10, 90, 200)], 1)
    xp, xm = x[:100], x[100:]
    r = learn_gm(xp, xm, steps=40, lr=2.0)
    hinge = lambda t: np.maximum(0, 1 - score_gm(xp, t) + score_gm(xm, t)).mean()
    assert r["loss"] == pytest.approx(hinge(r["t"]))
    assert r["loss"] <= hinge((63.0, 71.0, 97.0, -37.0))  # step 0 (the start) is a candidate
    assert r["train_tie_rate"] == pytest.approx(np.mean(score_gm(xp, r["t"]) == score_gm(xm, r["t"])))
    m = learn_gm_multistart(xp, xm, [(63, 71, 97, -37), (50, 60, 120, -20)], steps=20, lr=2.0)
    assert m["loss"] == min(f["loss"] for f in m["fits"]) and len(m["fits"]) == 2


def test_learn_aggregate_on_a_rated_fixture(tmp_path):
    # ratings: z > x, z > y, z > w, x > w, y > w (tests/human/test_ratings.py); rated source = line 1 of style 1
    csv_path, out = write_fixture(tmp_path)
    feats = {"z": (0.9, 0.9, 30.0), "x": (0.8, 0.85, 40.0), "y": (0.8, 0.85, 40.0), "w": (0.7, 0.8, 60.0)}
    tsvs = {}
    for system, (a, s, p) in feats.items():
        write_lines(out / f"sentiment.test.0.{system}", ["bad .\tgood .\t0"])  # one style-0 line
        tsvs[system] = tmp_path / f"{system}.tsv"  # rows: style-0 line 0, style-1 lines 0 and 1
        write_lines(
            tsvs[system],
            [
                "i\tsource_style\tacc_prob\tsim\tpp_joint",
                "0\t0\t0\t0\t1",
                "1\t1\t0\t0\t1",
                f"2\t1\t{a}\t{s}\t{p}",
            ],
        )
    torch.set_num_threads(1)
    res = learn_aggregate(csv_path, out, tsvs, held_out=0.0, steps=20)
    assert res["pairs"]["with_metrics"] == 5 and res["pairs"]["train"] == 5
    # default t by hand: GM(z) = (27 19 67)^(1/3) > GM(x) = GM(y) = (17 14 57)^(1/3) > GM(w) = (7 9 37)^(1/3)
    assert res["default_t"]["agreement"]["train"] == pair_agreement([1, 1, 1, 1, 1], [0, 0, 0, 0, 0])
    assert res["learned_t"]["loss"] == min(f["loss"] for f in res["learned_t"]["fits"])
    t = res["learned_t"]["t"]
    plus, minus = np.array([feats[k] for k in "zzzxy"]), np.array([feats[k] for k in "xywww"])
    assert (
        res["learned_t"]["train_agreement"]
        == pair_agreement(score_gm(plus, t), score_gm(minus, t))["agreement"]
    )
    assert res["columns"]["acc"] == "acc_prob" and "P(target style)" in res["acc_form"]
    with pytest.raises(ValueError, match="lack the column"):
        learn_aggregate(csv_path, out, tsvs, columns=("acc", "sim", "pp_joint"), held_out=0.0, steps=1)


def test_naturalness_files_pair_outputs_with_their_inputs():
    cfg = {"evaluators": {"naturalness": {"checkpoint": "ep2.0"}}}
    ours = rule_inputs.naturalness_files(cfg, "yelp", "M0.seed1")
    assert ours == {
        "outputs": [f"results/yelp/models/M0/seed1/transfers/dev.ep2.0.{s}.txt" for s in (0, 1)],
        "inputs": [f"results/yelp/data/dev.{s}.raw.txt" for s in (0, 1)],
    }
    ext = rule_inputs.naturalness_files(cfg, "yelp", "mit")
    assert ext == {
        "outputs": [f"results/yelp/systems/mit/test.final.{s}.txt" for s in (0, 1)],
        "inputs": [f"results/yelp/systems/mit/test.final.sources.{s}.txt" for s in (0, 1)],
    }


def test_learned_t_skips_the_degenerate_minimiser():
    # humans prefer the rewrite with lower Acc and Sim; from a start that leaves 46% of the pairs tied (both
    # GMs 0), the unconstrained minimiser zeroes every GM: a tied pair costs exactly delta = 1, a wrongly
    # ordered one more
    torch.set_num_threads(1)
    rng = np.random.default_rng(1)
    xm = np.stack([rng.uniform(0.8, 1, 50), rng.uniform(0.85, 1, 50), rng.uniform(20, 40, 50)], 1)
    xp = xm - np.array([0.1, 0.1, -20.0])
    t0 = (85.0, 90.0, 97.0, -37.0)
    hinge = lambda t: np.maximum(0, 1 - score_gm(xp, t) + score_gm(xm, t)).mean()
    ties = lambda t: np.mean(score_gm(xp, t) == score_gm(xm, t))
    assert ties(t0) == pytest.approx(0.46)
    free = learn_gm(xp, xm, t0=t0, steps=300, lr=2.0, max_tie_rate=1.0)
    assert ties(free["t"]) == 1.0 and free["loss"] == pytest.approx(1.0)
    kept = learn_gm(xp, xm, t0=t0, steps=300, lr=2.0)
    assert ties(kept["t"]) <= 0.5 and kept["train_tie_rate"] == pytest.approx(ties(kept["t"]))
    assert kept["loss"] == pytest.approx(hinge(kept["t"])) and free["loss"] < kept["loss"] <= hinge(t0)
    assert not kept["degenerate"]
    # no iterate qualifies: the unconstrained minimiser, flagged
    flagged = learn_gm(xp, xm, t0=t0, steps=300, lr=2.0, max_tie_rate=-1.0)
    assert flagged["degenerate"] and flagged["loss"] == pytest.approx(free["loss"])


def test_select_fit_prefers_the_lowest_non_degenerate_loss():
    a, b, c = (
        {"loss": 0.9, "degenerate": True},
        {"loss": 1.3, "degenerate": False},
        {"loss": 1.1, "degenerate": False},
    )
    assert select_fit([a, b, c]) is c and select_fit([a, b]) is b
    assert select_fit([a, {"loss": 0.95, "degenerate": True}]) is a
