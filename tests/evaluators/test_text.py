"""idf, style lexicon (Mir et al. 2019), content-word masking (Pang 2019): hand-worked examples."""

import math

import numpy as np

from tst.evaluators.content_mask import mask_content_words, select_content_words
from tst.evaluators.idf import compute_idf
from tst.evaluators.style_lexicon import STYLE_MASK, build_style_lexicon, mask_style_words, remove_style_words
from tst.io import read_lines


def test_idf_hand_example():
    sents = [["a", "b"], ["a", "c"], ["a", "a", "d", "c"]]
    out = compute_idf(sents)
    assert out["n_docs"] == 3
    # df: a 3 (counted once per sentence), c 2, b 1, d 1; idf = ln(3 / df)
    assert out["idf"] == {"a": 0.0, "c": math.log(1.5), "b": math.log(3), "d": math.log(3)}
    assert out["default"] == math.log(3)


def planted_corpus(seed=0, n=300):
    rng = np.random.default_rng(seed)
    fill = [f"w{i}" for i in range(40)]
    s0, s1 = [], []
    for i in range(n):
        for out, planted in ((s0, ["awful", "terrible"]), (s1, ["great", "lovely"])):
            words = [str(w) for w in rng.choice(fill, rng.integers(3, 9))]
            if i % 4:  # a quarter have no style word, so the classes overlap (finite L1 solution)
                words.insert(int(rng.integers(0, len(words) + 1)), planted[i % 2])
            out.append(words)
    return s0, s1


def test_style_lexicon_finds_planted_words():
    s0, s1 = planted_corpus()
    lex = build_style_lexicon(s0, s1, C=3, sd=2)
    assert set(lex["0"]) == {"awful", "terrible"}
    assert set(lex["1"]) == {"great", "lovely"}
    assert lex["C"] == 3 and lex["sd"] == 2


def test_mask_and_remove_style_words():
    lex = {"0": ["awful"], "1": ["great"], "C": 3, "sd": 2}
    s = ["the", "great", "food", "was", "awful"]
    assert mask_style_words(s, lex) == ["the", STYLE_MASK, "food", "was", STYLE_MASK]
    assert mask_style_words(s, {"food"}, mask="_") == ["the", "great", "_", "was", "awful"]
    assert remove_style_words(s, lex) == ["the", "food", "was"]


def test_select_and_mask_content_words():
    # "pizza" 30x in style 0, 0x in style 1; "sushi" 0x / 30x; "good" skewed but in VADER;
    # "waiter" skewed but kept (a known style word); "table" equally frequent
    s0 = [["pizza", "table", "good", "waiter"]] * 30 + [["the"]] * 30
    s1 = [["sushi", "table"]] * 30 + [["the"]] * 30
    words = select_content_words(s0, s1, keep=["waiter"], min_count=20, ratio=5.0)
    # V = 6 words, N0 = 150, N1 = 90 tokens; smoothed ratios: pizza (31/156) / (1/96) = 19.1,
    # sushi (31/96) / (1/156) = 50.4, "the" (31/96) / (31/156) = 1.6 (below 5); most skewed first
    assert words == ["sushi", "pizza"]
    assert mask_content_words([["pizza", "is", "here"]], words) == [["<content>", "is", "here"]]


def test_style_lexicon_on_real_yelp(shared_data):
    shen = shared_data / "yelp" / "shen"
    s0 = [line.split() for line in read_lines(shen / "sentiment.dev.0")[:6000]]
    s1 = [line.split() for line in read_lines(shen / "sentiment.dev.1")[:6000]]
    lex = build_style_lexicon(s0, s1, C=3, sd=2)
    assert {"worst", "terrible", "horrible"} <= set(lex["0"])  # 34 words with Mir's non-zero threshold
    assert {"great", "delicious", "amazing"} <= set(lex["1"])
    assert not {"the", "food", "was"} & (set(lex["0"]) | set(lex["1"]))
