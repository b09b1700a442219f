"""Acc, naturalness, STI and perplexity against hand-worked values and closed forms."""

import math

import numpy as np
import pytest

from tst.metrics.acc import accuracy
from tst.metrics.naturalness import naturalness
from tst.metrics.perplexity import perplexity, perplexity_by_style
from tst.metrics.sti import direction_corrected_emd, sti


class TableClassifier:
    """predict_proba looks each sentence (joined tokens) up in a table."""

    def __init__(self, table):
        self.table = table
        self.calls = 0

    def predict_proba(self, sentences):
        self.calls += 1
        return np.array([self.table[" ".join(s)] for s in sentences])


class UniformLM:
    def __init__(self, v):
        self.v = v

    def token_nll(self, sentences):
        return [np.full(len(s) + 1, math.log(self.v)) for s in sentences]  # tokens + <eos>


class FixedLM:
    def __init__(self, nll):
        self.nll = nll

    def token_nll(self, sentences):
        return [np.array(self.nll[" ".join(s)]) for s in sentences]


def test_accuracy_hand_example():
    clf = TableClassifier(
        {"good food": [0.1, 0.9], "bad food": [0.8, 0.2], "ok": [0.45, 0.55], "meh": [0.6, 0.4]}
    )
    # targets: 1, 0, 0, 1 -> right, right, wrong (0.55 -> style 1), wrong (0.4 -> style 0): 2/4
    r = accuracy(["good food", "bad food", "ok", "meh"], [1, 0, 0, 1], clf)
    assert r.score == 0.5
    assert r.per_sentence == [1.0, 1.0, 0.0, 0.0]
    assert r.name == "acc" and r.higher_is_better
    r2 = accuracy(["good food"], [1], clf, name="transfer_strength")
    assert r2.name == "transfer_strength" and r2.score == 1.0
    with pytest.raises(ValueError):
        accuracy(["ok"], [0, 1], clf)


def test_naturalness_is_mean_prob_human():
    class Adv:
        def prob_human(self, sentences):
            return np.array([{"a": 0.9, "b": 0.5, "c": 0.51, "d": 0.1, "e": 0.7}[s[0]] for s in sentences])

    # Mir et al.'s corpus score: the mean P(human), (0.9 + 0.5 + 0.51 + 0.1) / 4
    r = naturalness(["a", "b", "c", "d"], Adv(), name="naturalness_nn", sources=["e", "b", "a", "d"])
    assert r.score == pytest.approx(2.01 / 4)
    assert r.details["share_judged_human"] == 0.5  # 0.9 and 0.51 exceed 0.5; 0.5 itself does not
    assert r.per_sentence == [0.9, 0.5, 0.51, 0.1]
    assert r.name == "naturalness_nn" and r.variant.startswith("Mir et al. 2019: mean P(human)")
    # output vs its input: a 0.9 > e 0.7; b = b, d = d; c 0.51 < a 0.9
    assert (r.details["output_more_natural"], r.details["input_more_natural"], r.details["ties"]) == (1, 1, 2)


def test_sti_two_styles_is_signed_change_of_target_probability():
    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b = rng.random(2)
        t = int(rng.integers(2))
        p, q = np.array([1 - a, a]), np.array([1 - b, b])
        assert direction_corrected_emd(p, q, t) == pytest.approx(q[t] - p[t], abs=1e-12)
    # hand case: 0.2 -> 0.7 towards style 1 is +0.5; the same move when style 0 is the target is -0.5
    assert direction_corrected_emd([0.8, 0.2], [0.3, 0.7], 1) == pytest.approx(0.5)
    assert direction_corrected_emd([0.8, 0.2], [0.3, 0.7], 0) == pytest.approx(-0.5)


def test_sti_three_styles_uses_mirs_ground_distance():
    # Mir et al.'s ground distance is 1 between any two distinct styles (np.ones with pyemd, which moves no
    # mass within a bin): all mass moving from class 0 to class 2 costs 1, not |0 - 2| = 2
    assert direction_corrected_emd([1, 0, 0], [0, 0, 1], 2) == pytest.approx(1.0)
    assert direction_corrected_emd([0, 0, 1], [1, 0, 0], 2) == pytest.approx(-1.0)
    # half the mass moves: 0.5; by hand 0.5 * (|0.2 - 0.5| + |0.5 - 0.1| + |0.3 - 0.4|) = 0.4
    assert direction_corrected_emd([0, 1, 0], [0, 0.5, 0.5], 2) == pytest.approx(0.5)
    assert direction_corrected_emd([0.2, 0.5, 0.3], [0.5, 0.1, 0.4], 2) == pytest.approx(0.4)
    # equal to POT's exact EMD with the 0/1 ground distance on random distributions
    ot = pytest.importorskip("ot")
    rng = np.random.default_rng(1)
    for k in (2, 3, 5):
        D = 1.0 - np.eye(k)
        for _ in range(20):
            p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
            t = int(rng.integers(k))
            want = ot.emd2(p, q, D) * (1 if q[t] >= p[t] else -1)
            assert direction_corrected_emd(p, q, t) == pytest.approx(want, abs=1e-9)


def test_sti_corpus_mean_with_classifier():
    clf = TableClassifier(
        {"src a": [0.9, 0.1], "out a": [0.2, 0.8], "src b": [0.3, 0.7], "out b": [0.4, 0.6]}
    )
    r = sti(["src a", "src b"], ["out a", "out b"], [1, 0], clf)
    assert r.per_sentence == pytest.approx([0.7, 0.1])
    assert r.score == pytest.approx(0.4)


@pytest.mark.parametrize("count_eos", [False, True])
def test_perplexity_uniform_lm_is_vocab_size(count_eos):
    r = perplexity(["a b c", "d", "e f"], UniformLM(37), count_eos=count_eos)
    assert r.score == pytest.approx(37.0)
    assert r.per_sentence == pytest.approx([37.0] * 3)
    # words only (Shen et al.'s code) vs words + one <eos> per sentence
    assert r.details["n_tokens"] == (3 + 1 + 2) + (3 if count_eos else 0)
    assert not r.higher_is_better


def test_perplexity_hand_example_pools_tokens():
    # NLL per token, the last being <eos>: "x" 1, <eos> 2; "y z" 3, 0, <eos> 3
    lm = FixedLM({"x": [1.0, 2.0], "y z": [3.0, 0.0, 3.0]})
    r = perplexity(["x", "y z"], lm, count_eos=True)
    assert r.score == pytest.approx(math.exp(9.0 / 5.0))  # not the mean of per-sentence PPs
    assert r.per_sentence == pytest.approx([math.exp(1.5), math.exp(2.0)])
    assert "include the final <eos>" in r.variant
    # default, Shen et al.'s code (language_model.py l. 92): <eos> out of both sums -> (1 + 3 + 0) / 3 words
    d = perplexity(["x", "y z"], lm)
    assert d.score == pytest.approx(math.exp(4.0 / 3.0))
    assert d.per_sentence == pytest.approx([math.exp(1.0), math.exp(1.5)])
    assert d.details["n_tokens"] == 3 and "<eos> not counted" in d.variant


def test_perplexity_by_target_style_routes_each_sentence():
    lms = {0: UniformLM(10), 1: UniformLM(1000)}
    r = perplexity_by_style(["a", "b c d", "e"], [0, 1, 0], lms, count_eos=True)
    # style 0: 2 + 2 tokens at ln 10; style 1: 4 tokens at ln 1000 -> exp((4 ln10 + 12 ln10) / 8)
    assert r.score == pytest.approx(10 ** (16 / 8))
    # <eos> not counted: style 0: 1 + 1 words at ln 10; style 1: 3 words at ln 1000 -> exp((2 + 9) ln10 / 5)
    assert perplexity_by_style(["a", "b c d", "e"], [0, 1, 0], lms).score == pytest.approx(10 ** (11 / 5))
    assert r.per_sentence == pytest.approx([10.0, 1000.0, 10.0])


def test_target_probs_reads_each_distinct_sentence_once():
    """Repeated sentences (strings or token lists alike) are read once, and each row gets its own target's
    probability: the hand table's values, in the input's order."""
    from tst.metrics.style import target_probs

    read = []

    class Recording(TableClassifier):
        def predict_proba(self, sentences):
            read.extend(" ".join(s) for s in sentences)
            return super().predict_proba(sentences)

    clf = Recording({"good food": [0.1, 0.9], "bad food": [0.8, 0.2], "ok": [0.45, 0.55]})
    got = target_probs(["good food", ["bad", "food"], "good food", "ok", "bad food"], [1, 0, 0, 1, 1], clf)
    assert got.tolist() == [0.9, 0.8, 0.1, 0.55, 0.2]
    assert sorted(read) == ["bad food", "good food", "ok"] and clf.calls == 1
