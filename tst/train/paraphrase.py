"""Same-style paraphrase pairs for Pang & Gimpel's eq. 5 (they used 90K pairs of ParaNMT-50M, Wieting &
Gimpel 2018, after dropping pairs where one sentence is a substring of the other)."""

from __future__ import annotations

import numpy as np

from tst.io import read_lines


def filter_and_sample(pairs, n: int | None, seed: int) -> list[tuple[list[str], list[str]]]:
    """Drop pairs whose one side is a substring of the other (footnote 1); sample n without replacement."""
    kept = [(u, v) for u, v in pairs if u and v and u not in v and v not in u]
    if n is not None and len(kept) > n:
        idx = np.sort(np.random.default_rng(seed).choice(len(kept), n, replace=False))
        kept = [kept[i] for i in idx]
    return [(u.split(), v.split()) for u, v in kept]


def load_paraphrases(path, n: int | None = None, seed: int = 0) -> list[tuple[list[str], list[str]]]:
    """A `a<TAB>b` file -> filtered, sampled token-list pairs."""
    pairs = []
    for line in read_lines(path):
        parts = line.split("\t")
        if len(parts) >= 2:
            pairs.append((parts[0].strip(), parts[1].strip()))
    return filter_and_sample(pairs, n, seed)
