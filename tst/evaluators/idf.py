"""Inverse document frequency over the training corpus, each sentence a document (Pang & Gimpel 2019, Sim):
idf(q) = log(|C| / |{s in C : q in s}|), natural log, C = X0 u X1. Unseen words get `default` =
log(|C| / 1), the value of a word seen in a single sentence."""

from __future__ import annotations

import math
from collections import Counter


def compute_idf(sentences: list[list[str]]) -> dict:
    """-> {"idf": {word: float}, "n_docs": int, "default": float} (the idf.json layout)."""
    df = Counter(w for s in sentences for w in set(s))
    n = len(sentences)
    idf = {w: math.log(n / c) for w, c in sorted(df.items(), key=lambda x: (-x[1], x[0]))}
    return {"idf": idf, "n_docs": n, "default": math.log(n) if n else 0.0}
