"""Attribute hit (Yu et al. 2021, §5.1.1) against the paper's Table 1."""

import pytest
from nltk.tokenize import TreebankWordTokenizer

from tst.metrics.attribute_hit import attribute_hit
from tst.nlp.attributes import stem

# Yu et al. 2021, Table 1: input "The store is dump looking and management needs to change." and its list
# (§5.1.1) ["store", "look", "management", "need", "change"]; the five samples and their printed hits.
PAPER_LIST = ["store", "look", "management", "need", "change"]
SAMPLES = [
    ("The store is good looking and management does not need to change.", 100),
    ("The store looks nice and I really like the management.", 60),
    ("Friendly staff, reasonably organized and knowledge employees.", 0),
    ("The store is dump.", 20),
    ("The store dump dump.", 20),
]


def test_table1_exact():
    tok = TreebankWordTokenizer()
    src = [stem(w) for w in PAPER_LIST]
    outs = [tok.tokenize(s) for s, _ in SAMPLES]
    res = attribute_hit([src] * len(outs), outs)
    assert [round(100 * s) for s in res.per_sentence] == [h for _, h in SAMPLES]
    assert res.name == "attribute_hit"
    assert res.score == pytest.approx((1 + 0.6 + 0 + 0.2 + 0.2) / 5)
    assert res.details == {"n_scored": 5, "n_empty": 0}


def test_nouns_only_list_prefers_sample2():
    # §5.1.1: with the nouns-only list ["store", "look", "management"] sample 2 scores 100 like sample 1.
    src = [stem(w) for w in ["store", "look", "management"]]
    outs = [TreebankWordTokenizer().tokenize(s) for s, _ in SAMPLES[:2]]
    assert attribute_hit([src, src], outs).per_sentence == [1.0, 1.0]


def test_empty_lists_left_out_and_counted():
    res = attribute_hit([[], ["store", "manag"], []], [["a"], ["the", "stores"], []])
    assert res.per_sentence == [None, 0.5, None]
    assert res.score == 0.5
    assert res.details == {"n_scored": 1, "n_empty": 2}
    assert attribute_hit([[]], [["x"]]).score is None


def test_repeated_entries_and_placeholders():
    # a listed word that occurs twice counts twice; placeholders match verbatim, not lowercased
    res = attribute_hit([["minut", "minut", "-PERSON-", "movi"]], [["the", "-PERSON-", "minutes", "film"]])
    assert res.per_sentence == [0.75]
    assert attribute_hit([["-PERSON-"]], [["-person-"]]).per_sentence == [0.0]


def test_length_mismatch_raises():
    with pytest.raises(ValueError):
        attribute_hit([["a"]], [])
