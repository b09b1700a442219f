"""Mask corpus-specific content words before training evaluators (Pang 2019, §2 and §3.2: "mask out
corpus-specific content words, before pretraining the language model ... and the classifier").

A word is corpus-specific content if it is much more frequent in one style's corpus than in the other
(smoothed relative-frequency ratio >= `ratio`, count >= `min_count`) and not a style word known from
outside knowledge (Pang §3.1: "retrieving the style keywords by relying on outside knowledge"): the VADER
sentiment lexicon (any non-zero valence, `use_vader`) and any `keep` list. Words of the classifier-derived
style lexicon (Mir et al. 2019) are NOT spared: Pang §3.1 says such a classifier picks up exactly the
corpus-specific names and content words ("Oliver") that need masking.
"""

from __future__ import annotations

from collections import Counter

from tst.nlp.vader import vader_words

MASK = "<content>"


def select_content_words(
    sents0: list[list[str]],
    sents1: list[list[str]],
    keep=(),
    min_count: int = 20,
    ratio: float = 5.0,
    use_vader: bool = True,
    max_words: int | None = None,
) -> list[str]:
    """Words whose add-one smoothed relative frequency differs by a factor >= ratio between the two
    corpora, most skewed first, excluding `keep` (known style words, e.g. a hand-made list), VADER words
    (use_vader) and non-alphabetic tokens."""
    c0, c1 = Counter(t for s in sents0 for t in s), Counter(t for s in sents1 for t in s)
    v = len(set(c0) | set(c1))
    n0, n1 = sum(c0.values()) + v, sum(c1.values()) + v
    skip = set(keep) | (vader_words() if use_vader else set())
    scored = []
    for w in set(c0) | set(c1):
        if c0[w] + c1[w] < min_count or w in skip or not w.isalpha():
            continue
        r = ((c0[w] + 1) / n0) / ((c1[w] + 1) / n1)
        r = max(r, 1 / r)
        if r >= ratio:
            scored.append((-r, w))
    words = [w for _, w in sorted(scored)]
    return words[:max_words] if max_words else words


def mask_content_words(sentences: list[list[str]], words, mask: str = MASK) -> list[list[str]]:
    words = set(words)
    return [[mask if t in words else t for t in s] for s in sentences]
