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


def test_wmd_solves_without_importing_scikit_learn_or_scipy_stats():
    """POT is imported with scikit-learn and networkx unimportable (its k-means and a graph partitioning, ~1 s per
    score job) and its toy data generators (ot.datasets, which import scipy.stats: ~0.5 s) stood in for; ot.emd2
    still solves: the crossing case of test_wmd_hand_cases, 1.0 by hand. Afterwards ot.datasets imports the real
    module (its make_1D_gauss)."""
    script = (
        "import sys\n"
        "from conftest import Emb\n"
        "from tst.metrics.wmd import VectorCache, word_movers_distance\n"
        "v = VectorCache(Emb({'a': [0, 0], 'b': [1, 0], 'c': [0, 1], 'd': [1, 1]}))\n"
        "print(word_movers_distance(['a', 'b'], ['c', 'd'], v), 'ot' in sys.modules, 'sklearn' in sys.modules,\n"
        "      'networkx' in sys.modules, 'scipy.stats' in sys.modules)\n"
        "import ot.datasets\n"
        "print(hasattr(ot.datasets, 'make_1D_gauss'), 'scipy.stats' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    assert r.stdout.split() == ["1.0", "True", "False", "False", "False", "True", "True"]


def test_a_pot_that_needs_scipy_stats_elsewhere_is_imported_with_it(tmp_path):
    """A POT whose package imports scipy.stats itself (planted: an `ot` package beside the test) fails the light
    import; tst.metrics.wmd then imports it as it is, and emd2 is that package's."""
    (tmp_path / "ot").mkdir()
    (tmp_path / "ot" / "__init__.py").write_text(
        "from . import datasets\nimport scipy.stats\n\ndef emd2(a, b, M):\n    return 'planted'\n"
    )
    (tmp_path / "ot" / "datasets.py").write_text("")
    script = (
        "import sys\n"
        "from tst.metrics import wmd\n"
        "ot = wmd._ot()\n"
        "print(ot.emd2(0, 0, 0), 'scipy.stats' in sys.modules, ot.__file__.startswith(sys.argv[1]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    r = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True, env=env
    )
    assert r.stdout.split() == ["planted", "True", "True"]


def _simplex_wmd(a, b, vectors):
    """WMD with POT's network simplex called directly (ot.lp.emd_wrap.emd_c, b rescaled to a's mass, as ot.emd2
    does before calling it), without ot.emd2's backend dispatch: a second route to the same optimum."""
    from collections import Counter

    import numpy as np
    from ot.lp.emd_wrap import check_result, emd_c

    ca = Counter(t for t in a if vectors(t) is not None)
    cb = Counter(t for t in b if vectors(t) is not None)
    A, B = np.stack([vectors(t) for t in ca]), np.stack([vectors(t) for t in cb])
    M = np.ascontiguousarray(np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)))
    da, db = np.array(list(ca.values()), dtype=float), np.array(list(cb.values()), dtype=float)
    da, db = da / da.sum(), db / db.sum()
    _, cost, _, _, code = emd_c(da, db * da.sum() / db.sum(), M, 100_000, 1, None, None)
    check_result(code)
    return float(cost)


WMD_PAIRS = [
    ("the food was great and the staff was friendly", "the food was awful and the staff was rude"),
    ("i will never come back here", "i will definitely come back here again"),
    ("worst service ever , do not go", "best service ever , go go go"),
    ("the pizza was cold", "the pizza was hot and fresh"),
    ("great great place", "terrible place"),
    ("we waited an hour for a table", "we were seated at once"),
]


def test_wmd_through_ot_emd2_equals_the_network_simplex_called_directly():
    """word_movers_distance (POT's public ot.emd2) on six review pairs with seeded 50-d vectors, on unit vectors
    as the metric uses them, within 1e-9 of the simplex called directly, and the metric's mean of the same."""
    import numpy as np

    words = sorted({w for pair in WMD_PAIRS for s in pair for w in s.split()})
    rng = np.random.default_rng(0)
    e = Emb({w: rng.normal(size=50) for w in words}, dim=50)
    v = VectorCache(e, unit=True)
    want = [_simplex_wmd(s.split(), o.split(), v) for s, o in WMD_PAIRS]
    got = [word_movers_distance(s.split(), o.split(), v) for s, o in WMD_PAIRS]
    assert got == pytest.approx(want, abs=1e-9, rel=0)
    assert all(0.1 < x < 2 for x in got)  # distinct sentences, unit vectors: between 0 and 2
    r = wmd([s for s, _ in WMD_PAIRS], [o for _, o in WMD_PAIRS], e, mode="unmasked")
    assert r.per_sentence == pytest.approx(want, abs=1e-9, rel=0)


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
