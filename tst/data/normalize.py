"""Sentence normalization and the length filter (config keys `normalize:` and `length:`)."""

from __future__ import annotations

import re
from functools import lru_cache

NUM = "<num>"
_NUMBER = re.compile(r"^[+-]?(\d+([.,:/]\d+)*|\d*[.,]\d+)(st|nd|rd|th|s|%)?$")


@lru_cache(maxsize=1)
def _treebank():
    from tst.imports import load_nltk

    load_nltk()
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer()


def is_number(token: str) -> bool:
    """A digit string such as 3, 3.5, 1,000, 10:30, 2nd, 90s or 50% (Fu et al. replace these by <num>)."""
    return bool(_NUMBER.match(token))


def ptb_tokenize(text: str) -> list[str]:
    """Penn-Treebank tokens of raw text ("it's good." -> it 's good .)."""
    return _treebank().tokenize(text)


def normalize_tokens(
    text: str, lowercase: bool = True, numbers: bool = False, tokenize: bool = False
) -> list[str]:
    """One line -> tokens: optional PTB tokenization, lowercasing, numbers -> <num>; whitespace collapsed."""
    tokens = ptb_tokenize(text) if tokenize else text.split()
    if lowercase:
        tokens = [t.lower() for t in tokens]
    if numbers:
        tokens = [NUM if is_number(t) else t for t in tokens]
    return tokens


def normalize_line(text: str, **cfg) -> str:
    return " ".join(normalize_tokens(text, **cfg))


def normalizer(cfg: dict | None):
    """A function line -> tokens from a dataset's `normalize:` block (lowercase, numbers, tokenize)."""
    c = cfg or {}
    lowercase, numbers, tokenize = (
        bool(c.get("lowercase", True)),
        bool(c.get("numbers", False)),
        bool(c.get("tokenize", False)),
    )
    return lambda text: normalize_tokens(text, lowercase=lowercase, numbers=numbers, tokenize=tokenize)


def length_ok(tokens: list[str], min_words: int = 1, max_words: int | None = None) -> bool:
    """The length filter: min_words <= len(tokens) <= max_words (None = no upper bound)."""
    n = len(tokens)
    return n >= min_words and (max_words is None or n <= max_words)
