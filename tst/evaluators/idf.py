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


LAYOUT = '{"idf": {word: number}, "n_docs": int, "default": number}'


def check_idf(obj, path="idf.json") -> dict:
    """`obj` when it has the idf.json layout (compute_idf); else InputError naming the file, what is wrong and
    the fix."""
    from numbers import Real

    from tst.io import InputError

    def bad(what: str):
        raise InputError(f"{path}: {what}; expected {LAYOUT} (rebuild it: rule build_idf)")

    if not isinstance(obj, dict):
        bad(f"a JSON {type(obj).__name__}, not an object")
    for key in ("idf", "default"):
        if key not in obj:
            bad(f"no key {key!r}")
    if not isinstance(obj["idf"], dict):
        bad(f'"idf" is a {type(obj["idf"]).__name__}, not an object')
    for value in (obj["default"], *obj["idf"].values()):
        if isinstance(value, bool) or not isinstance(value, Real):
            bad(f"a value that is not a number: {value!r}")
    return obj


def load_idf(path) -> dict:
    """idf.json, checked (check_idf)."""
    from tst.io import read_json

    return check_idf(read_json(path), path)
