"""VADER's sentence score and the sentence-level labels of the style classifier (tst.nlp.vader), against
VADER's published formula worked by hand: one lexicon word of valence v gives compound v / sqrt(v^2 + 15)
(alpha = 15), and a negation in the three words before it scales v by -0.74 (N_SCALAR)."""

import math

import pytest

pytest.importorskip("vaderSentiment", reason="vaderSentiment absent: pip install -e .")

from tst.nlp.vader import AGREE, agreeing, compound, vader_lexicon


def by_hand(v: float) -> float:
    return v / math.sqrt(v * v + 15)


def test_compound_is_vaders_normalized_valence_worked_by_hand():
    lex = vader_lexicon()
    assert (lex["great"], lex["terrible"], lex["bad"]) == (3.1, -2.1, -2.5)
    assert compound("the food was great .") == pytest.approx(by_hand(3.1), abs=1e-4)  # 0.6249
    assert compound(["the", "food", "was", "terrible", "."]) == pytest.approx(
        by_hand(-2.1), abs=1e-4
    )  # -0.4767
    # the corpus' tokenized negation: "n't" before "bad" turns -2.5 into -2.5 x -0.74 = 1.85
    assert compound(["the", "wine", "was", "n't", "bad", "."]) == pytest.approx(
        by_hand(1.85), abs=1e-4
    )  # 0.4310
    assert compound("we went there on tuesday .") == 0.0


def test_agreeing_keeps_the_sentences_whose_words_carry_their_style():
    sents = [
        s.split()
        for s in (
            "the food was great .",
            "the wine was n't bad .",
            "we went there on tuesday .",
            "the food was terrible .",
        )
    ]
    # positive (1): compound >= 0.05; negative (0): <= -0.05; the neutral sentence is neither
    assert agreeing(sents, 1) == [sents[0], sents[1]]
    assert agreeing(sents, 0) == [sents[3]]
    assert AGREE == 0.05
    # a sentence of a negative review that reads positive is dropped from the negative style
    assert agreeing([sents[1]], 0) == []


def test_agreeing_refuses_a_third_style():
    with pytest.raises(ValueError, match="negative \\(0\\) / positive \\(1\\) pair; got style 2"):
        agreeing([["good"]], 2)
