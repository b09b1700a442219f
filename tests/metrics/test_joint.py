"""The default GM's sentence-level factors (tst.metrics.style, tst.metrics.joint) by hand: the style gain over
the source, the content above the fixed-sentence bound, the joint score J; the two guarantees they are built
for (no fixed sentence has a mean cosine above the bound; copying the source never raises J); and score_system
computing style, content, joint and their inputs together, each once."""

import dataclasses
import math

import numpy as np
import pytest

import tst.scoring as score_mod
from tst.metrics import sbert
from tst.metrics.joint import content_above_bound, fixed_sentence_bound, joint
from tst.metrics.registry import METRICS
from tst.metrics.style import style_gain
from tst.score import score_system

# P(style 1) of each sentence by the fake style classifier (one row per sentence, as predict_proba returns)
P1 = {"a b": 0.2, "c d": 0.3, "e f": 0.1, "g h": 0.4, "a x": 0.9, "g z": 0.1, "": 0.95}


class Rows:
    """A style classifier whose predict_proba returns the given rows [P(style 0), P(style 1)], counting calls."""

    def __init__(self):
        self.calls = 0

    def predict_proba(self, sentences):
        self.calls += 1
        p1 = np.array([P1[" ".join(s)] for s in sentences])
        return np.stack([1 - p1, p1], axis=1)


def test_style_gain_by_hand():
    sources = ["a b", "c d", "e f", "g h"]
    outputs = ["a x", "c d", "", "g z"]  # a transfer, a copy, an empty output, a transfer
    gain = style_gain(sources, outputs, [1, 1, 0, 0], Rows())
    # P(target) of output minus of source, floored at 0:
    # 0.9 - 0.2 = 0.7; the copy 0.3 - 0.3 = 0; the empty output 0; target 0: (1 - 0.1) - (1 - 0.4) = 0.3
    assert gain.tolist() == pytest.approx([0.7, 0.0, 0.0, 0.3])
    # a loss is no gain: an output further from the target than its source scores 0, not below
    assert style_gain(["a x"], ["a b"], [1], Rows()).tolist() == [0.0]
    # an empty output scores 0 even where the classifier calls it the target style (P1[""] = 0.95)
    assert style_gain(["c d"], [""], [1], Rows()).tolist() == [0.0]
    assert style_gain([], [], [], Rows()).tolist() == []
    with pytest.raises(ValueError, match="2 sources, 1 outputs"):
        style_gain(["a b", "c d"], ["a x"], [1, 1], Rows())


def test_style_score_is_the_mean_probability_of_the_target_style():
    from tst.metrics.style import style_probability

    r = style_probability(["a x", "c d", "", "g z"], [1, 1, 0, 0], Rows())
    # P(target): 0.9, 0.3, an empty output 0 (not the classifier's 0.95 for style 1), 1 - 0.1 = 0.9
    assert r.per_sentence == pytest.approx([0.9, 0.3, 0.0, 0.9])
    assert r.score == pytest.approx(0.525)
    assert r.details == {"n": 4, "n_empty": 1, "n_right": 2}
    assert style_probability([], [], Rows()).score is None


def test_a_copy_scores_0_style_whatever_the_classifier_thinks():
    rng = np.random.default_rng(0)
    sentences = [f"w{i} v{i}" for i in range(50)]
    p1 = dict(zip(sentences, rng.uniform(0, 1, 50)))

    class Random:
        def predict_proba(self, toks):
            p = np.array([p1[" ".join(t)] for t in toks])
            return np.stack([1 - p, p], axis=1)

    gain = style_gain(sentences, sentences, rng.integers(0, 2, 50).tolist(), Random())
    assert set(gain.tolist()) == {0.0}


def unit(deg):
    return np.array([math.cos(math.radians(deg)), math.sin(math.radians(deg))])


def test_fixed_sentence_bound_by_hand():
    # sources at 0 and 90 degrees: mean (0.5, 0.5), norm sqrt(0.5)
    assert fixed_sentence_bound([unit(0), unit(90)]) == pytest.approx(math.sqrt(0.5))
    # one source: a copy of it reaches cosine 1, the bound is 1; opposite sources: no sentence is closer to both
    # than orthogonal on average, the bound is 0
    assert fixed_sentence_bound([unit(30)]) == pytest.approx(1.0)
    assert fixed_sentence_bound([unit(0), unit(180)]) == pytest.approx(0.0, abs=1e-12)
    # (1, 0) and (0.6, 0.8): mean (0.8, 0.4), norm sqrt(0.8)
    assert fixed_sentence_bound([[1.0, 0.0], [0.6, 0.8]]) == pytest.approx(math.sqrt(0.8))


def test_content_above_bound_by_hand():
    # style 0 sources at 0 and 90 degrees (tau_0 = sqrt(0.5)); style 1 sources (1, 0) and (0.6, 0.8)
    # (tau_1 = sqrt(0.8)); each output's cosine to its source
    vectors = [unit(0), unit(90), [1.0, 0.0], [0.6, 0.8]]
    cos = [0.8, 1.0, 0.0, 0.96]
    per, tau = content_above_bound(cos, [0, 0, 1, 1], vectors)
    t0, t1 = math.sqrt(0.5), math.sqrt(0.8)
    assert tau == {0: pytest.approx(t0), 1: pytest.approx(t1)}
    # [cos - tau]_+ / (1 - tau): (0.8 - 0.7071) / 0.2929 = 0.3172; a copy 1; below the bound 0;
    # (0.96 - 0.8944) / 0.1056 = 0.6211
    assert per == pytest.approx([(0.8 - t0) / (1 - t0), 1.0, 0.0, (0.96 - t1) / (1 - t1)])
    assert per[0] == pytest.approx(0.3172, abs=5e-5) and per[3] == pytest.approx(0.6211, abs=5e-5)


def test_no_fixed_sentence_has_a_mean_cosine_above_the_bound():
    """Cauchy-Schwarz: for one fixed unit y and unit sources x_1..x_n, mean_j cos(y, x_j) = y . mean_j x_j <=
    ||mean_j x_j|| = tau; checked for many random y against random sources, in 2 and in 384 dimensions, and
    reached by y along the mean."""
    rng = np.random.default_rng(1)
    for dim, n in ((2, 5), (384, 40)):
        for _ in range(20):
            x = rng.normal(size=(n, dim))
            x /= np.linalg.norm(x, axis=1, keepdims=True)
            x += rng.uniform(0, 2) * rng.normal(size=dim) / np.sqrt(dim)  # sources sharing a direction
            x /= np.linalg.norm(x, axis=1, keepdims=True)
            tau = fixed_sentence_bound(x)
            y = rng.normal(size=(500, dim))
            y /= np.linalg.norm(y, axis=1, keepdims=True)
            assert (y @ x.T).mean(axis=1).max() <= tau + 1e-12
            best = x.mean(axis=0) / np.linalg.norm(x.mean(axis=0))
            assert (x @ best).mean() == pytest.approx(tau, rel=1e-12)


def test_joint_by_hand():
    # (0.8 x 0.5 x 0.9)^(1/3) = 0.36^(1/3) = 0.7114; any factor 0 -> 0; None counts as 0
    assert joint([0.8], [0.5], [0.9]) == pytest.approx([0.36 ** (1 / 3)])
    assert 0.36 ** (1 / 3) == pytest.approx(0.7114, abs=5e-5)
    assert joint([0.8, 0.0, 1.0, 0.5], [0.5, 1.0, 1.0, None], [0.9, 1.0, 1.0, 1.0]).tolist() == pytest.approx(
        [0.36 ** (1 / 3), 0.0, 1.0, 0.0]
    )


def test_copying_the_source_never_raises_j():
    """A copied output has s_i = 0 (test_a_copy_scores_0_style...), so J_i = 0 there: for random factors and
    any subset of outputs replaced by their sources, the mean J never rises; it stays exactly when the copied
    outputs had J_i = 0 already."""
    rng = np.random.default_rng(2)
    for _ in range(500):
        n = int(rng.integers(1, 30))
        s, c, f = rng.uniform(0, 1, (3, n))
        s[rng.uniform(size=n) < 0.3] = 0.0  # some outputs that did not move towards the target
        honest = joint(s, c, f).mean()
        copied = rng.uniform(size=n) < rng.uniform()
        s_copy, c_copy, f_copy = s.copy(), c.copy(), f.copy()
        # the copy keeps every content (c = 1) and the source's fluency, but gains no style
        s_copy[copied], c_copy[copied], f_copy[copied] = 0.0, 1.0, rng.uniform(0.5, 1, copied.sum())
        gamed = joint(s_copy, c_copy, f_copy).mean()
        assert gamed <= honest + 1e-12
        assert gamed == pytest.approx(np.cbrt(s * c * f)[~copied].sum() / n, abs=1e-12)


# ---- score_system with fake evaluators: style, content, joint and their inputs, each computed once ----

# 2-D sentence embeddings (the fake encoder returns them normalized): style 0's sources at 0 and 90 degrees,
# style 1's at (1, 0) and (0.6, 0.8), as in test_content_above_bound_by_hand
EMB = {
    "a b": [1.0, 0.0],
    "c d": [0.0, 1.0],
    "e f": [1.0, 0.0],
    "g h": [0.6, 0.8],
    "a x": [0.8, 0.6],  # cos 0.8 with "a b"
    "g z": [0.8, 0.6],  # cos 0.48 + 0.48 = 0.96 with "g h"
    "": [0.0, 1.0],  # cos 0 with "e f"
}
P_REAL = {"a x": 0.9, "c d": 0.8, "g z": 0.5}


class Encoder:
    def __init__(self):
        self.texts = []

    def encode(self, texts, **kw):
        self.texts += list(texts)
        v = np.array([EMB[t] for t in texts], dtype=float)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


class Acceptability:
    def __init__(self):
        self.calls = 0

    def p_real(self, sentences):
        self.calls += 1
        return [P_REAL[" ".join(s)] for s in sentences]


def test_score_system_computes_style_content_and_joint_each_once(tmp_path, monkeypatch):
    d = tmp_path / "evaluators"
    d.mkdir()
    for name in ("style_minilm.pt", "acceptability.pt"):
        (d / name).write_text("read by the patched loaders")
    clf, acc, enc = Rows(), Acceptability(), Encoder()
    monkeypatch.setattr(score_mod, "load_classifier", lambda path: clf)
    monkeypatch.setattr(score_mod, "load_acceptability", lambda path: acc)
    monkeypatch.setattr(sbert, "load_model", lambda: enc)
    monkeypatch.setattr(sbert, "missing", lambda: None)
    computed = []

    def counted(key, compute):
        def run(ctx):
            computed.append(key)
            return compute(ctx)

        return run

    inputs = ("style", "content", "acceptability", "sbert_all_minilm_l6_v2", "joint")
    for key in inputs:
        monkeypatch.setitem(
            METRICS, key, dataclasses.replace(METRICS[key], compute=counted(key, METRICS[key].compute))
        )
    sources, outputs = ["a b", "c d", "e f", "g h"], ["a x", "c d", "", "g z"]
    scores = score_system(sources, outputs, [0, 0, 1, 1], d, options={"precision": "fp32"}, only=inputs)
    # each computed once, the factors first asked by content and joint (registry order: style, content, joint)
    assert sorted(computed) == sorted(inputs) and len(computed) == 5
    assert clf.calls == 2 and acc.calls == 1  # outputs, sources; the non-empty outputs
    # style: P(target) of the outputs (test_style_score_is_the_mean_probability_of_the_target_style); J takes the
    # gains of test_style_gain_by_hand, 0.7, 0, 0, 0.3, from the same classifier calls
    assert scores["style"].per_sentence == pytest.approx([0.9, 0.3, 0.0, 0.9])
    # cosines 0.8, 1 (copy), 0 (empty line's vector), 0.96; content above tau_0 = sqrt(0.5), tau_1 = sqrt(0.8)
    assert scores["sbert_all_minilm_l6_v2"].score == pytest.approx((0.8 + 1 + 0 + 0.96) / 4)
    t0, t1 = math.sqrt(0.5), math.sqrt(0.8)
    c = [(0.8 - t0) / (1 - t0), 1.0, 0.0, (0.96 - t1) / (1 - t1)]
    assert scores["content"].per_sentence == pytest.approx(c)
    assert scores["content"].details["tau"] == {"0": pytest.approx(t0), "1": pytest.approx(t1)}
    # the corpus content: weighted by the style gains 0.7, 0, 0, 0.3 (the copy's 1.0 weighs nothing)
    assert scores["content"].score == pytest.approx((0.7 * c[0] + 0.3 * c[3]) / 1.0)
    # acceptability: P(real) 0.9, 0.8, empty 0, 0.5
    assert scores["acceptability"].per_sentence == pytest.approx([0.9, 0.8, 0.0, 0.5])
    # J: (0.7 c_0 0.9)^(1/3), the copy 0, the empty line 0, (0.3 c_3 0.5)^(1/3)
    j = [(0.7 * c[0] * 0.9) ** (1 / 3), 0.0, 0.0, (0.3 * c[3] * 0.5) ** (1 / 3)]
    assert scores["joint"].per_sentence == pytest.approx(j)
    assert scores["joint"].score == pytest.approx(sum(j) / 4)
    assert scores["joint"].details == {"n": 4, "n_positive": 2}
    # asked for J alone: its factors are computed (not reported), the evaluator files checked; the style gain
    # needs no style score
    computed.clear()
    alone = score_system(sources, outputs, [0, 0, 1, 1], d, options={"precision": "fp32"}, only=["joint"])
    assert list(alone) == ["joint"] and alone["joint"].score == pytest.approx(sum(j) / 4)
    assert sorted(computed) == sorted(k for k in inputs if k != "style")


def test_joint_is_skipped_with_its_factors_reason(tmp_path, monkeypatch):
    d = tmp_path / "evaluators"
    d.mkdir()
    for name in ("style_minilm.pt", "acceptability.pt"):
        (d / name).write_text("read by the patched loaders")
    monkeypatch.setattr(score_mod, "load_classifier", lambda path: Rows())
    monkeypatch.setattr(score_mod, "load_acceptability", lambda path: Acceptability())
    s = score_system(["a b"], ["a x"], [0], d, options={"sbert": False}, only=["content", "joint", "style"])
    assert "sbert" in s.skipped["content"] and s.skipped["joint"] == s.skipped["content"]
    assert s["style"].per_sentence == pytest.approx([0.9])
    (d / "style_minilm.pt").unlink()
    s = score_system(["a b"], ["a x"], [0], d, only=["joint"])
    assert s.skipped["joint"] == "missing evaluator file(s): style_minilm.pt"
