"""VADER (Hutto & Gilbert 2014), shipped with vaderSentiment: its lexicon, loaded once, used by the attribute lists
(Yu et al.), content preservation's style-word filter (Fu et al.) and content masking; its sentence score, for the
style classifier's sentence-level labels (evaluators.minilm.labels: vader)."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _analyzer():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


@lru_cache(maxsize=1)
def vader_lexicon() -> dict[str, float]:
    """word -> mean valence (negative to positive)."""
    return dict(_analyzer().lexicon)


@lru_cache(maxsize=1)
def vader_words() -> frozenset[str]:
    """The words of the lexicon: a positive/negative word dictionary."""
    return frozenset(vader_lexicon())


# VADER's own thresholds for a positive (compound >= 0.05) and a negative (<= -0.05) sentence (vaderSentiment's
# README); between them a sentence is neutral
AGREE = 0.05


def compound(sentence) -> float:
    """VADER's compound score in [-1, 1] of a sentence (a string or its tokens, read space-joined)."""
    text = sentence if isinstance(sentence, str) else " ".join(sentence)
    return float(_analyzer().polarity_scores(text)["compound"])


def agreeing(sentences, style: int) -> list:
    """The sentences VADER reads as their style's sentiment: style 1 (positive) compound >= 0.05, style 0
    (negative) <= -0.05. A corpus labels a sentence by its review's rating; these keep the ones whose own words
    carry it (docs/style_and_gm.md)."""
    if style not in (0, 1):
        raise ValueError(f"VADER labels read a negative (0) / positive (1) pair; got style {style!r}")
    if style == 1:
        return [s for s in sentences if compound(s) >= AGREE]
    return [s for s in sentences if compound(s) <= -AGREE]
