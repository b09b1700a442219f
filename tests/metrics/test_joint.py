"""The default GM's sentence-level factors (tst.metrics.style, tst.metrics.joint) by hand: the style gain over
the source, the content nearer its own source than others, the joint score J; the two guarantees they are built
for (one fixed sentence per style keeps content for at most k sources of each style, so its J is at most
sum_s k_s / N; copying the source never raises J); and score_system computing style, content, joint and their
inputs together, each once."""

import dataclasses
import math

import numpy as np
import pytest

import tst.metrics.joint as joint_mod
import tst.scoring.evaluator_files as score_mod
from tst.metrics import sbert
from tst.metrics.joint import content_margin, fixed_sentence_bound, joint, nearest_k
from tst.metrics.registry import METRICS
from tst.metrics.style import gain_of, style_gain
from tst.scoring.compute import score_system

# P(style 1) of each sentence by the fake style classifier (one row per sentence, as predict_proba returns)
P1 = {"a b": 0.2, "c d": 0.3, "e f": 0.1, "g h": 0.6, "e g": 0.4, "a x": 0.9, "g z": 0.1, "": 0.95}


class Rows:
    """A style classifier whose predict_proba returns the given rows [P(style 0), P(style 1)], counting calls."""

    def __init__(self):
        self.calls, self.read = 0, []

    def predict_proba(self, sentences):
        self.calls += 1
        self.read += [" ".join(s) for s in sentences]
        p1 = np.array([P1[" ".join(s)] for s in sentences])
        return np.stack([1 - p1, p1], axis=1)


def test_style_gain_by_hand():
    sources = ["a b", "c d", "e f", "g h"]
    outputs = ["a x", "c d", "", "g z"]  # a transfer, a copy, an empty output, a transfer
    gain = style_gain(sources, outputs, [1, 1, 0, 0], Rows())
    # P(target) of output minus of source, floored at 0:
    # 0.9 - 0.2 = 0.7; the copy 0.3 - 0.3 = 0; the empty output 0; target 0: (1 - 0.1) - (1 - 0.6) = 0.5
    assert gain.tolist() == pytest.approx([0.7, 0.0, 0.0, 0.5])
    # a loss is no gain: an output further from the target than its source scores 0, not below
    assert style_gain(["a x"], ["a b"], [1], Rows()).tolist() == [0.0]
    # an empty output scores 0 even where the classifier calls it the target style (P1[""] = 0.95)
    assert style_gain(["c d"], [""], [1], Rows()).tolist() == [0.0]
    assert style_gain([], [], [], Rows()).tolist() == []
    with pytest.raises(ValueError, match="2 sources, 1 outputs"):
        style_gain(["a b", "c d"], ["a x"], [1, 1], Rows())
    # an output that does not read as the target style gains nothing, however far it moved: "e g" reads 0.4 as
    # style 1 against its source's 0.1 (a gain of 0.3 had it crossed 1/2)
    assert style_gain(["e f"], ["e g"], [1], Rows()).tolist() == [0.0]
    # nor does the output of a source already read as the target style: "c d" reads 0.7 as style 0, "g z" 0.9
    assert style_gain(["c d"], ["g z"], [0], Rows()).tolist() == [0.0]
    # where the source does not, the same output gains: "a x" reads 0.1 as style 0
    assert style_gain(["a x"], ["g z"], [0], Rows()).tolist() == pytest.approx([0.8])


def test_a_gain_is_a_crossing_into_the_target_style():
    """On generated readings: s_i > 0 exactly where the output reads as the target style (R(y_i | x_i) > 1/2) and
    its source does not (R(x_i | x_i) <= 1/2), and then s_i = R(y_i | x_i) - R(x_i | x_i); so an output one part of
    which reads below 1/2 adds 0 to J, and so does any output of a source the classifier already reads as the
    target style."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        r_y, r_x = rng.random(50), rng.random(50)
        r_y[rng.random(50) < 0.1] = 0.5  # the boundary itself: not in the target style
        r_x[rng.random(50) < 0.1] = 0.5  # a source on it: not in the target style either
        s = gain_of(r_y, r_x)
        crossed = (r_y > 0.5) & (r_x <= 0.5)
        assert np.array_equal(s > 0, crossed)
        assert np.allclose(s[crossed], (r_y - r_x)[crossed])


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


def test_nearest_k_is_two_percent_of_a_styles_sources():
    # floor(0.02 n), at least 1, at most the n - 1 other sources
    assert [nearest_k(n) for n in (500, 1000, 150, 99, 49, 2, 1)] == [10, 20, 3, 1, 1, 1, 1]
    assert fixed_sentence_bound({0: 10, 1: 10}, 1000) == pytest.approx(0.02)


def test_content_margin_by_hand():
    # style 0: sources at 0, 60 and 120 degrees (3 sources: k = 1, m_i = the nearest other source's cosine)
    sources = [unit(0), unit(60), unit(120), unit(45)]
    outputs = [unit(10), unit(20), unit(120), unit(135)]
    c, ks = content_margin(outputs, sources, [0, 0, 0, 1])
    assert ks == {0: 1, 1: 1}
    # y_0 at 10 degrees: own cos 10 = 0.9848, others cos 50 = 0.6428 and cos 110 < 0:
    # (0.9848 - 0.6428) / (1 - 0.6428) = 0.9575
    c0 = (math.cos(math.radians(10)) - math.cos(math.radians(50))) / (1 - math.cos(math.radians(50)))
    assert c0 == pytest.approx(0.9575, abs=5e-5)
    # y_1 at 20 degrees is nearer source 0 (cos 20) than its own (cos 40): 0; y_2, a copy of its source at 120
    # degrees, whose nearest other source is at 60 (cos 0.5): (1 - 0.5) / (1 - 0.5) = 1; style 1 has one source
    # and no other to be nearer than (m = -1): (cos 90 + 1) / 2 = 0.5
    assert c == pytest.approx([c0, 0.0, 1.0, 0.5])
    # an output as near to another copy of its source as to its own keeps nothing of its own: 0, not 0 / 0
    c, _ = content_margin([unit(0), unit(0)], [unit(0), unit(0)], [0, 0])
    assert c.tolist() == [0.0, 0.0]


def test_a_fixed_sentence_per_style_keeps_content_for_at_most_k_sources():
    """For one fixed y per style, c_i > 0 only where x_i is among the k sources nearest to y, so J <= sum_s k_s / N
    (each term at most 1): checked for random, source-like and mean-direction y in 384 dimensions, with the
    cosines computed in one block and in blocks of a few rows."""
    rng = np.random.default_rng(1)
    n0, n1, dim = 200, 150, 384  # k = 4 and 3
    x = rng.normal(size=(n0 + n1, dim)) + 2 * rng.normal(size=dim)  # sources sharing a direction
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    styles = np.array([0] * n0 + [1] * n1)
    candidates = [rng.normal(size=dim), x[0] + 0.1 * rng.normal(size=dim), x[:n0].mean(axis=0), x[n0 + 5]]
    for y in candidates:
        y = y / np.linalg.norm(y)
        c, ks = content_margin(np.tile(y, (n0 + n1, 1)), x, styles)
        assert ks == {0: 4, 1: 3}
        assert (c[:n0] > 0).sum() <= 4 and (c[n0:] > 0).sum() <= 3
        assert (
            joint(np.ones(n0 + n1), c, np.ones(n0 + n1)).mean() <= fixed_sentence_bound(ks, n0 + n1) + 1e-12
        )
    out = x + 0.5 * rng.normal(size=x.shape) / np.sqrt(dim)  # outputs near their sources
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    whole, _ = content_margin(out, x, styles)
    assert (whole > 0).mean() > 0.5
    joint_mod._BLOCK = 7 * n0  # 7 rows at a time
    try:
        blocks, _ = content_margin(out, x, styles)
    finally:
        joint_mod._BLOCK = 4_000_000
    assert blocks == pytest.approx(whole, abs=1e-12)  # the same products, summed in another order


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
# style 1's at (1, 0) and (0.6, 0.8)
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
        self.shuffled_floor = {
            "q": 0.95,
            "value": 0.2,
            "n": 4,
        }  # t_F: the fluency factor is (P(real) - 0.2) / 0.8

    def p_real(self, sentences):
        self.calls += 1
        return [P_REAL[" ".join(s)] for s in sentences]


def patched_evaluators(tmp_path, monkeypatch, classifier, acceptability, encoder=None):
    """An evaluators folder whose style classifier, acceptability classifier and (unless None) sentence encoder
    are the given objects (the loaders patched to return them)."""
    d = tmp_path / "evaluators"
    d.mkdir()
    for name in ("style_minilm.pt", "acceptability.pt"):
        (d / name).write_text("read by the patched loaders")
    monkeypatch.setattr(score_mod, "load_classifier", lambda path: classifier)
    monkeypatch.setattr(score_mod, "load_acceptability", lambda path: acceptability)
    if encoder is not None:
        monkeypatch.setattr(sbert, "load_model", lambda: encoder)
        monkeypatch.setattr(sbert, "missing", lambda: None)
    return d


def test_score_system_computes_style_content_and_joint_each_once(tmp_path, monkeypatch):
    clf, acc = Rows(), Acceptability()
    d = patched_evaluators(tmp_path, monkeypatch, clf, acc, Encoder())
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
    # gains of test_style_gain_by_hand, 0.7, 0, 0, 0.5, from the same classifier calls
    assert scores["style"].per_sentence == pytest.approx([0.9, 0.3, 0.0, 0.9])
    # cosines to the own source 0.8, 1 (copy), 0 (empty line's vector), 0.96; two sources per style (k = 1), so
    # the content is the margin over the other source's cosine: (0.8 - 0.6) / 0.4 = 0.5, (1 - 0) / 1 = 1,
    # 0 (the empty line is nearer "g h", 0.8), (0.96 - 0.8) / 0.2 = 0.8
    assert scores["sbert_all_minilm_l6_v2"].score == pytest.approx((0.8 + 1 + 0 + 0.96) / 4)
    c = [0.5, 1.0, 0.0, 0.8]
    assert scores["content"].per_sentence == pytest.approx(c)
    assert scores["content"].details["nearest_k"] == {"0": 1, "1": 1}
    assert scores["content"].details["fixed_sentence_bound"] == pytest.approx(0.5)  # (1 + 1) / 4
    # the corpus content: weighted by the style gains 0.7, 0, 0, 0.5 (the copy's 1.0 weighs nothing)
    assert scores["content"].score == pytest.approx((0.7 * c[0] + 0.5 * c[3]) / 1.2)
    # acceptability: P(real) 0.9, 0.8, empty 0, 0.5
    assert scores["acceptability"].per_sentence == pytest.approx([0.9, 0.8, 0.0, 0.5])
    # J: fluency above t_F = 0.2: (0.9 - 0.2) / 0.8 = 0.875 and (0.5 - 0.2) / 0.8 = 0.375; so (0.7 c_0 0.875)^(1/3),
    # the copy 0, the empty line 0, (0.5 c_3 0.375)^(1/3)
    j = [(0.7 * c[0] * 0.875) ** (1 / 3), 0.0, 0.0, (0.5 * c[3] * 0.375) ** (1 / 3)]
    assert scores["joint"].per_sentence == pytest.approx(j)
    assert scores["joint"].score == pytest.approx(sum(j) / 4)
    assert scores["joint"].details == {
        "n": 4,
        "n_positive": 2,
        "fixed_sentence_bound": pytest.approx(0.5),
        "shuffled_floor": 0.2,
    }
    # asked for J alone: its factors are computed (not reported), the evaluator files checked; the style gain
    # needs no style score, and is read only where the content and fluency factors are above 0: J_i is 0 wherever
    # either is, so the empty output (f = 0) and its source "e f" are never read by the style classifier
    computed.clear()
    clf.read.clear()
    alone = score_system(sources, outputs, [0, 0, 1, 1], d, options={"precision": "fp32"}, only=["joint"])
    assert list(alone) == ["joint"] and alone["joint"].per_sentence == pytest.approx(j)
    assert alone["joint"].details == scores["joint"].details
    assert sorted(computed) == ["acceptability", "joint", "sbert_all_minilm_l6_v2"]
    assert "e f" in P1 and "e f" not in clf.read and {"a x", "a b", "g z", "g h"} <= set(clf.read)


def test_joint_is_skipped_with_its_factors_reason(tmp_path, monkeypatch):
    d = patched_evaluators(tmp_path, monkeypatch, Rows(), Acceptability())
    s = score_system(["a b"], ["a x"], [0], d, options={"sbert": False}, only=["content", "joint", "style"])
    assert "sbert" in s.skipped["content"] and s.skipped["joint"] == s.skipped["content"]
    assert s["style"].per_sentence == pytest.approx([0.9])
    (d / "style_minilm.pt").unlink()
    s = score_system(["a b"], ["a x"], [0], d, only=["joint"])
    assert s.skipped["joint"] == "missing evaluator file(s): style_minilm.pt"


def test_fluency_counts_only_what_is_above_word_salad():
    from tst.evaluators.acceptability import shuffled_floor
    from tst.metrics.joint import fluency_above_floor

    assert fluency_above_floor([0.1, 0.2, 0.6, 1.0], 0.2).tolist() == pytest.approx([0.0, 0.0, 0.5, 1.0])
    assert fluency_above_floor([0.9], 1.0).tolist() == [0.0]

    class ByWords:  # P(real) read off the bag of words, so a shuffled sentence keeps its value
        def __init__(self):
            self.seen = []

        def p_real(self, sentences):
            self.seen += list(sentences)
            return np.array(
                [int(next(w for w in s.split() if w.startswith("w"))[1:]) / 100 for s in sentences]
            )

    salad = [f"a w{i} c b" for i in range(21)]
    model = ByWords()
    floor = shuffled_floor(model, salad)
    # 21 values 0.00 .. 0.20: the 95th percentile sits at rank 0.95 x 20 = 19, the value 0.19
    assert floor == {"q": 0.95, "value": pytest.approx(0.19), "n": 21}
    assert model.seen == salad


def _unit_hash(text: str, salt: str) -> float:
    import hashlib

    return int(hashlib.sha256((salt + text).encode()).hexdigest()[:12], 16) / 16**12


class HashedRows:
    """A style classifier by a word list: P(style 1) = sigmoid(2 (positive words - negative words)), nudged by a
    hash of the text (so that no two sentences tie)."""

    def predict_proba(self, sentences):
        score = [sum((w in POS) - (w in NEG) for w in s) for s in sentences]
        p1 = np.array([1 / (1 + math.exp(-2 * v)) for v in score])
        p1 = np.clip(p1 + 0.01 * np.array([_unit_hash(" ".join(s), "style") - 0.5 for s in sentences]), 0, 1)
        return np.stack([1 - p1, p1], axis=1)


POS, NEG = {"good", "great"}, {"bad", "awful", "rude"}


class HashedEncoder:
    """A sentence's vector: the sum of its words' (hashed) vectors, unit length: outputs that keep their source's
    words stay nearest to it."""

    def encode(self, texts, **kw):
        def word(w):
            return np.array([_unit_hash(w, f"dim{d}") - 0.5 for d in range(16)])

        v = np.array([sum((word(w) for w in t.split()), np.full(16, 1e-6)) for t in texts])
        return v / np.linalg.norm(v, axis=1, keepdims=True)


class HashedAcceptability:
    def __init__(self):
        self.shuffled_floor = {"q": 0.95, "value": 0.5, "n": 4}

    def p_real(self, sentences):
        return [_unit_hash(" ".join(s), "real") for s in sentences]


def test_j_alone_equals_j_beside_its_factors_on_generated_corpora(tmp_path, monkeypatch):
    # J asked for alone reads the style gain of the outputs whose content and fluency factors are above 0 only;
    # on 20 generated corpora of 40 pairs (words of a small vocabulary, so that outputs keep, drop and add source
    # words) it equals, sentence by sentence, J computed after the style and content scores (every output's gain)
    d = patched_evaluators(tmp_path, monkeypatch, HashedRows(), HashedAcceptability(), HashedEncoder())
    words = ["the", "food", "was", "good", "bad", "great", "awful", ",", "and", "so", "but", "staff", "rude"]
    outputs_of = {0: ["great", "good"], 1: ["bad", "awful"]}
    rng = np.random.default_rng(0)
    partial = 0
    for _ in range(20):
        sources = [" ".join(rng.choice(words, rng.integers(2, 7))) for _ in range(40)]
        styles = [int(b) for b in rng.integers(0, 2, 40)]
        outputs = [  # the source's words but its style words, kept at random, with target-style words added
            " ".join(
                [w for w in x.split() if w not in POS | NEG and rng.random() < 0.8]
                + list(rng.choice(outputs_of[style], rng.integers(0, 3)))
            )
            for x, style in zip(sources, styles)
        ]
        alone = score_system(sources, outputs, styles, d, options={"precision": "fp32"}, only=["joint"])
        every = score_system(
            sources, outputs, styles, d, options={"precision": "fp32"}, only=["style", "content", "joint"]
        )
        assert alone["joint"].per_sentence == every["joint"].per_sentence
        assert alone["joint"].details == every["joint"].details
        partial += every["joint"].details["n_positive"]
    assert partial >= 30  # outputs with J > 0 among the 800 (40 with seed 0)
