"""Deterministic train/dev/test splits without leakage.

Sentences are compared after normalization (callers pass normalized, space-joined strings). Within a split
each sentence is kept once; across splits test wins over dev and dev over train, in both styles: a test
sentence never appears in dev or train, a dev sentence never in train.
"""

from __future__ import annotations

import random

from tst.names import SPLITS

PRIORITY = ("test", "dev", "train")  # who keeps a sentence that occurs in several splits
# datasets.<name>.splits keys a dataset leaves out: the pool's dev and test shares, the seed (the schema's
# descriptions name them)
SPLIT_DEFAULTS = {"dev_fraction": 0.1, "test_fraction": 0.1, "seed": 0}


def unique(lines: list[str]) -> list[str]:
    """Lines without repeats, first occurrence kept, order preserved."""
    return list(dict.fromkeys(lines))


def split_pool(
    lines: list[str], dev_fraction: float, test_fraction: float, seed: int
) -> dict[str, list[str]]:
    """Split one style's pool: de-duplicate, shuffle with `seed`, test = first round(n*test_fraction),
    dev = the next round(n*dev_fraction), train = the rest (each keeps the shuffled order)."""
    if not (0 <= dev_fraction and 0 <= test_fraction and dev_fraction + test_fraction < 1):
        raise ValueError(f"bad split fractions dev={dev_fraction} test={test_fraction} (datasets.*.splits)")
    pool = unique(lines)
    random.Random(seed).shuffle(pool)
    n_test, n_dev = round(len(pool) * test_fraction), round(len(pool) * dev_fraction)
    return {"test": pool[:n_test], "dev": pool[n_test : n_test + n_dev], "train": pool[n_test + n_dev :]}


def remove_leakage(
    splits: dict[str, dict[int, list[str]]], keep_repeats: tuple[str, ...] = ()
) -> tuple[dict[str, dict[int, list[str]]], dict]:
    """splits[split][style] -> lists de-duplicated within each split/style and across splits.

    Splits named in keep_repeats keep repeated lines (an explicit test file stays aligned with published
    outputs); they still remove sentences of higher-priority splits.
    Returns (clean splits, counts) with counts[split][style] = {"duplicates": n, "in_other_split": n}.
    """
    clean: dict[str, dict[int, list[str]]] = {}
    counts: dict[str, dict[int, dict[str, int]]] = {}
    taken: set[str] = set()  # sentences of higher-priority splits, any style
    for split in PRIORITY:
        if split not in splits:
            continue
        clean[split], counts[split] = {}, {}
        for style, lines in splits[split].items():
            uniq = list(lines) if split in keep_repeats else unique(lines)
            kept = [s for s in uniq if s not in taken]
            clean[split][style] = kept
            counts[split][style] = {
                "duplicates": len(lines) - len(uniq),
                "in_other_split": len(uniq) - len(kept),
            }
        for lines in clean[split].values():
            taken.update(lines)
    return {s: clean[s] for s in SPLITS if s in clean}, counts


def sample_train(lines: list[str], max_train: int | None, seed: int) -> list[str]:
    """At most max_train of a style's training sentences, drawn without replacement with `seed` and kept in
    their corpus order (None, or no more lines than that: all of them)."""
    if max_train is None or len(lines) <= max_train:
        return list(lines)
    keep = sorted(random.Random(seed).sample(range(len(lines)), max_train))
    return [lines[i] for i in keep]
