"""The embedded demo corpus: deterministic, two learnable styles over shared content, NER has work."""

import pytest

from tst.data import demo
from tst.data.demo import generate_demo


@pytest.fixture(scope="module")
def corpus():
    return generate_demo(sentences_per_style=1500, seed=13)


def test_deterministic_and_sizes(corpus):
    again = generate_demo(sentences_per_style=1500, seed=13)
    assert again["sentences"] == corpus["sentences"] and again["references"] == corpus["references"]
    assert generate_demo(50, seed=14)["sentences"][0] != generate_demo(50, seed=13)["sentences"][0]
    s0, s1 = corpus["sentences"][0], corpus["sentences"][1]
    assert len(s0) == len(s1) == 1500 and len(set(s0)) == 1500 and not set(s0) & set(s1)
    assert all(4 <= len(s.split()) <= 15 for s in s0 + s1)
    assert all(s == s.lower() for s in s0 + s1)


def test_styles_share_content_and_differ_in_style_words(corpus):
    words = [{w for s in corpus["sentences"][k] for w in s.split()} for k in (0, 1)]
    for dish in ("pizza", "sushi", "pad", "ramen"):
        assert dish in words[0] and dish in words[1]
    assert "best" in words[1] and "best" not in words[0]
    assert "rude" in words[0] and "rude" not in words[1]
    assert len(words[0] | words[1]) > 200  # enough variety for a classifier / LM to learn from


def test_references_and_paraphrases(corpus):
    for style in (0, 1):
        for s in corpus["sentences"][style][:300]:
            ref, para = corpus["references"][style][s], corpus["paraphrases"][style][s]
            assert ref != s and para != s
            # the content (dish/city/person words) of the source survives in its rewrite
            for name in demo.PERSONS + demo.CITIES + demo.DISHES:
                if f" {name} " in f" {s} ":
                    assert f" {name} " in f" {ref} " and f" {name} " in f" {para} "


def test_spacy_finds_the_names_and_places(corpus):
    from tst.nlp.backend import load_backend
    from tst.nlp.ner import mask

    sents = [
        s
        for s in corpus["sentences"][0][:400]
        if any(f" {n} " in f" {s} " for n in demo.PERSONS + demo.CITIES)
    ]
    toks = [s.split() for s in sents]
    _, ents = mask(toks, load_backend("spacy").annotate(toks, parse=False), {"PERSON": "-P-", "GPE": "-L-"})
    found = sum(
        1
        for s, e in zip(sents, ents)
        if {x for _, x in e} >= {n for n in demo.PERSONS + demo.CITIES if f" {n} " in f" {s} "}
    )
    assert len(sents) > 100 and found / len(sents) >= 0.9
