"""Sim, content preservation and WMD against hand-computed values (tiny 2-d embeddings)."""

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Emb

from tst.metrics.content_preservation import (
    content_preservation,
    random_pair_content_preservation,
)
from tst.metrics.sim import sim
from tst.metrics.wmd import STYLE_MASK, VectorCache, wmd, word_movers_distance
from tst.nlp.vader import vader_words

IDF = {"idf": {"a": 1.0, "b": 3.0}, "n_docs": 10, "default": 2.0}


def test_sim_identical_is_one_and_hand_case():
    e = Emb({"a": [1, 0], "b": [0, 1], "c": [2, 5]})
    r = sim(["a b c", "a b"], ["a b c", "a"], e, IDF)
    assert r.per_sentence[0] == pytest.approx(1.0)
    # v("a b") = (1*[1,0] + 3*[0,1]) / 4 = [1, 3]/4, v("a") = [1, 0]: cos = 1 / sqrt(10)
    assert r.per_sentence[1] == pytest.approx(1 / math.sqrt(10))
    assert r.score == pytest.approx((1 + 1 / math.sqrt(10)) / 2)


def test_sim_default_idf_and_undefined_pairs():
    e = Emb({"a": [1, 0], "c": [0, 1]})
    # "c" is not in the idf table: weight 2 (default). v("a c") = [1, 2]/3; v("c") = [0, 1]: cos = 2/sqrt5
    r = sim(["a c", "zzz"], ["c", "a"], e, IDF)
    assert r.per_sentence[0] == pytest.approx(2 / math.sqrt(5))
    assert r.per_sentence[1] is None and r.details["n_undefined"] == 1
    assert r.score == pytest.approx(2 / math.sqrt(5))


def test_content_preservation_hand_example():
    e = Emb({"a": [1, 2], "b": [3, 0], "c": [0, 1], "good": [9, 9]})
    # source "a b": min [1,0], mean [2,1], max [3,2] -> v = (1,0,2,1,3,2)
    # output "c good" with "good" filtered: v = (0,1,0,1,0,1); dot = 3, |v1| = sqrt19, |v2| = sqrt3
    r = content_preservation(["a b"], ["c good"], e, style_words={"good"})
    assert r.score == pytest.approx(3 / math.sqrt(57))
    same = content_preservation(["a b good"], ["a b"], e, style_words={"good"})
    assert same.score == pytest.approx(1.0)
    unfiltered = content_preservation(["a b good"], ["a b"], e)
    assert unfiltered.score < 0.999


def test_random_pair_with_two_sentences_swaps_them():
    e = Emb({"a": [1, 2], "b": [3, 0], "c": [0, 1]})
    # with N = 2 the only "other" output is the other one, whatever the seed
    r = random_pair_content_preservation(["a b", "c"], ["a b", "c"], e, seed=5)
    assert r.per_sentence == pytest.approx([3 / math.sqrt(57)] * 2)
    big = random_pair_content_preservation(["a b", "c", "a"] * 5, ["a b", "c", "a"] * 5, e, seed=1)
    again = random_pair_content_preservation(["a b", "c", "a"] * 5, ["a b", "c", "a"] * 5, e, seed=1)
    assert big.per_sentence == again.per_sentence  # seeded


def test_wmd_solves_without_importing_scikit_learn():
    """POT is imported with scikit-learn and networkx unimportable (its k-means and a graph partitioning, ~1 s per
    score job); emd2 still solves: the crossing case of test_wmd_hand_cases, 1.0 by hand."""
    script = (
        "import sys\n"
        "from conftest import Emb\n"
        "from tst.metrics.wmd import VectorCache, word_movers_distance\n"
        "v = VectorCache(Emb({'a': [0, 0], 'b': [1, 0], 'c': [0, 1], 'd': [1, 1]}))\n"
        "print(word_movers_distance(['a', 'b'], ['c', 'd'], v), 'ot' in sys.modules, 'sklearn' in sys.modules,\n"
        "      'networkx' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    assert r.stdout.split() == ["1.0", "True", "False", "False"]


def test_emd2_gives_pots_emd2_bit_for_bit():
    """tst.metrics.wmd.emd2 (POT's network simplex without ot.emd2's wrapper) against ot.emd2 itself on 3,000
    seeded bag-of-words problems of 1-15 words a side (counts 1-3, Euclidean costs of random vectors, some of them
    repeated words at distance 0), and on the hand case of test_wmd_hand_cases (1.0)."""
    import numpy as np
    import ot

    from tst.metrics.wmd import emd2

    rng = np.random.default_rng(0)
    for _ in range(3000):
        n, m = rng.integers(1, 16, 2)
        a, b = rng.integers(1, 4, n).astype(float), rng.integers(1, 4, m).astype(float)
        A, B = rng.normal(size=(n, 8)), rng.normal(size=(m, 8))
        B[: min(n, m) // 2] = A[: min(n, m) // 2]  # shared words
        M = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
        assert emd2(a / a.sum(), b / b.sum(), M) == float(ot.emd2(a / a.sum(), b / b.sum(), M))
    crossing = np.array([[1.0, math.sqrt(2)], [math.sqrt(2), 1.0]])
    assert emd2(np.array([0.5, 0.5]), np.array([0.5, 0.5]), crossing) == pytest.approx(1.0)


def test_vader_lexicon_holds_sentiment_words_only():
    words = vader_words()
    assert {"good", "bad", "great", "terrible"} <= words
    assert not {"the", "food", "restaurant"} & words


def test_wmd_hand_cases():
    e = Emb({"a": [0, 0], "b": [1, 0], "c": [0, 1], "d": [1, 1], "f": [3, 4], "g": [0, 3]})
    v = VectorCache(e)
    assert word_movers_distance(["a"], ["f"], v) == pytest.approx(5.0)  # |(3,4)| = 5
    # a->c and b->d, half the mass each at distance 1 (the crossing plan costs sqrt2)
    assert word_movers_distance(["a", "b"], ["c", "d"], v) == pytest.approx(1.0)
    # "a a b" (2/3, 1/3) all to g=(0,3): 2/3 * 3 + 1/3 * sqrt(10)
    assert word_movers_distance(["a", "a", "b"], ["g"], v) == pytest.approx(2 + math.sqrt(10) / 3)
    assert word_movers_distance(["b", "a", "b"], ["a", "b", "b"], v) == 0.0
    assert word_movers_distance(["zzz"], ["a"], v) is None


def test_wmd_identical_is_zero_and_masking():
    e = Emb({"food": [0, 0], "good": [0, 2], "bad": [0, -2], "was": [1, 0], STYLE_MASK: [5, 5]})
    style = {"good", "bad"}
    src, out = ["food was good", "good"], ["food was bad", "bad"]
    # on unit vectors (Mir et al.'s init_sims): good -> (0,1), bad -> (0,-1), food stays (0,0)
    unmasked = wmd(src, out, e, set(), mode="removed")
    assert unmasked.per_sentence == pytest.approx([2 / 3, 2.0])
    masked = wmd(src, out, e, style, mode="masked")
    assert masked.per_sentence == [0.0, 0.0] and masked.name == "wmd_masked"
    assert masked.details["mask_in_vocab"] is True
    removed = wmd(src, out, e, style, mode="removed")
    assert removed.per_sentence == [0.0, None] and removed.details["n_undefined"] == 1
    # masked: "was food customstyle" (1/3 each) vs "food was" (1/2 each): was and food keep 1/3 in place,
    # customstyle (5,5) -> unit (1,1)/sqrt2 sends 1/6 to food (0,0) at 1 and 1/6 to was (1,0) at sqrt(2 - sqrt2)
    r = wmd(["was food good"], ["food was"], e, style, mode="masked")
    assert r.score == pytest.approx((1 + math.sqrt(2 - math.sqrt(2))) / 6)
    assert not r.higher_is_better
