"""VADER's sentiment lexicon (Hutto & Gilbert 2014), shipped with vaderSentiment: loaded once, used by the
attribute lists (Yu et al.), content preservation's style-word filter (Fu et al.) and content masking."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def vader_lexicon() -> dict[str, float]:
    """word -> mean valence (negative to positive)."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return dict(SentimentIntensityAnalyzer().lexicon)


@lru_cache(maxsize=1)
def vader_words() -> frozenset[str]:
    """The words of the lexicon: a positive/negative word dictionary."""
    return frozenset(vader_lexicon())
