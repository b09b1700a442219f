"""Sanity baselines: systems that need no training, scored like any other, that a metric must rank below every
honest system (tests of the metrics themselves, not of transfer models).

  source          copy: the source unchanged (the `source` system every dataset already has)
  random_target   a random training sentence of the target style (seeded per line): fluent, on-style, unrelated
  nearest_target  the target-style training sentence nearest to the source under the content embedding
                  (idf-weighted GloVe mean, the vector of Sim): Li et al. 2018's RetrieveOnly idea
  fixed_target    one generic target-style training sentence for every input (the one of >= 5 tokens whose
                  words are the most frequent in the target style's training text)
  shuffled        the source's words in a random order (seeded per line; never the source itself when its
                  words allow another order)
  empty           an empty line for every input
  tail_clause     the source joined to a target-style verdict as a clause: the source without its final
                  punctuation, ", but", and fixed_target's sentence (without a leading and / but / so)
  tail_sentence   the source followed by fixed_target's sentence as a second sentence

The two tail baselines keep the whole source and add an on-style part: a style score that reads the whole sentence
at once lets the added part carry it (docs/style_and_gm.md); the default GM's style factor reads each part.

Each function takes word-level lines and returns one output line per source, deterministically.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np

from tst import names

COPY = "source"  # the copy baseline is the untransferred `source` system (rule untransferred_system)
BUILT = (
    "random_target",
    "nearest_target",
    "fixed_target",
    "shuffled",
    "empty",
    "tail_clause",
    "tail_sentence",
)  # made by rule baseline_system
BASELINES = (COPY, *BUILT)
# The tail baselines: run on a dataset whose styles are a sentiment pair, unless its tail_baselines says otherwise
# (tst.stages.tails_apply)
TAILS = ("tail_clause", "tail_sentence")
# Built from the source alone (no target-style corpus, no evaluator).
FROM_SOURCE_ONLY = ("shuffled", "empty")


def label(system: str) -> str:
    """How tables name a baseline: its system name (tst.names.display_name; the copy baseline is `source`)."""
    return names.display_name(system)


def _rng(seed: int, style: int, i: int) -> random.Random:
    # one stream per (seed, source style, line): a line's output does not depend on the lines before it
    return random.Random(f"{int(seed)}:{int(style)}:{int(i)}")


def random_target(sources: list[str], target_train: list[str], seed: int, style: int) -> list[str]:
    """For each source i, target_train[k] with k drawn uniformly by a generator seeded with (seed, style, i)."""
    pool = [t for t in target_train if t.strip()]
    if not pool:
        raise ValueError("random_target needs target-style training sentences; the file has none")
    return [pool[_rng(seed, style, i).randrange(len(pool))] for i in range(len(sources))]


FIXED_MIN_WORDS = 5  # fixed_target: the sentence has at least this many tokens (a real, generic sentence)


def fixed_target(sources: list[str], target_train: list[str], min_words: int = FIXED_MIN_WORDS) -> list[str]:
    """For every source, the most generic target-style training sentence: among those of at least min_words
    tokens (all, if none is that long), the one whose tokens have the highest mean log frequency in the
    target-style training text (ties: the first in sorted order). On Yelp: "and the food is great ." and "and
    this was the worst .". (The most frequent whole sentence would do on a corpus with repeats, but most
    corpora have few: on the offline Yelp sample it is "friendly." and "... .".)"""
    pool = [t for t in target_train if t.strip()]
    if not pool:
        raise ValueError("fixed_target needs target-style training sentences; the file has none")
    counts = Counter(w for t in pool for w in t.split())
    total = sum(counts.values())
    long = [t for t in dict.fromkeys(pool) if len(t.split()) >= min_words] or list(dict.fromkeys(pool))

    def generic(t: str) -> float:
        words = t.split()
        return sum(math.log(counts[w] / total) for w in words) / len(words)

    best = min(long, key=lambda t: (-generic(t), t))
    return [best] * len(sources)


def shuffled(sources: list[str], seed: int, style: int) -> list[str]:
    """Each source's words permuted (random.shuffle seeded with (seed, style, i)); a permutation that gives the
    source back is replaced by the words rotated one place, unless every order is the same sentence."""
    out = []
    for i, s in enumerate(sources):
        words = s.split()
        perm = list(words)
        _rng(seed, style, i).shuffle(perm)
        if perm == words and len(set(words)) > 1:
            perm = words[1:] + words[:1]
        out.append(" ".join(perm))
    return out


def empty(sources: list[str]) -> list[str]:
    return [""] * len(sources)


TAIL_CONJUNCTIONS = ("and", "but", "so")  # dropped from the start of the tail before ", but" joins it
FINAL_MARKS = (".", "!", "?", ",", ";")


def tail_clause(sources: list[str], target_train: list[str]) -> list[str]:
    """Each source without its final punctuation, then ", but" and fixed_target's sentence (its leading and /
    but / so dropped): "the food was cold , but the food is great ."."""
    tail = fixed_target(sources[:1] or [""], target_train)[0].split()
    while len(tail) > 1 and tail[0] in TAIL_CONJUNCTIONS:
        tail = tail[1:]
    out = []
    for s in sources:
        words = s.split()
        while words and words[-1] in FINAL_MARKS:
            words = words[:-1]
        out.append(" ".join([*words, ",", "but", *tail]) if words else " ".join(tail))
    return out


def tail_sentence(sources: list[str], target_train: list[str]) -> list[str]:
    """Each source, then fixed_target's sentence as a second sentence (a full stop added to a source that ends
    without a sentence mark)."""
    tail = fixed_target(sources[:1] or [""], target_train)[0]
    out = []
    for s in sources:
        words = s.split()
        if words and words[-1] not in (".", "!", "?"):
            words.append(".")
        out.append(" ".join([*words, tail]))
    return out


def nearest_target(
    sources: list[str], target_train: list[str], embeddings, idf: dict, batch: int = 512
) -> list[str]:
    """For each source, the target-style training sentence whose idf-weighted mean GloVe vector (the vector
    of Sim, tst.metrics.sim.sentence_vector) has the highest cosine with the source's (ties: the first in
    file order). A source with no embedded word gets the first candidate; candidates with none are skipped."""
    from tst.metrics.sim import sentence_vector

    table, default = idf["idf"], float(idf["default"])

    def unit_rows(lines):
        keep, rows = [], []
        for j, line in enumerate(lines):
            v = sentence_vector(line.split(), embeddings, table, default)
            if v is not None and np.linalg.norm(v) > 0:
                keep.append(j)
                rows.append(v / np.linalg.norm(v))
        return keep, (np.vstack(rows) if rows else np.zeros((0, 1)))

    cand_idx, cand = unit_rows(target_train)
    if not cand_idx:
        raise ValueError("nearest_target needs target-style training sentences with embedded words; none has")
    src_idx, src = unit_rows(sources)
    best = [cand_idx[0]] * len(sources)
    for start in range(0, len(src_idx), batch):
        scores = src[start : start + batch] @ cand.T
        for row, k in zip(src_idx[start : start + batch], scores.argmax(axis=1)):
            best[row] = cand_idx[int(k)]
    return [target_train[j] for j in best]


def make(
    name: str,
    sources: list[str],
    style: int,
    seed: int,
    target_train: list[str] | None = None,
    embeddings=None,
    idf: dict | None = None,
) -> list[str]:
    """The outputs of baseline `name` (one of BUILT) for sources of style `style` (target = 1 - style)."""
    if name == "random_target":
        return random_target(sources, target_train, seed, style)
    if name == "nearest_target":
        return nearest_target(sources, target_train, embeddings, idf)
    if name == "fixed_target":
        return fixed_target(sources, target_train)
    if name == "shuffled":
        return shuffled(sources, seed, style)
    if name == "empty":
        return empty(sources)
    if name == "tail_clause":
        return tail_clause(sources, target_train)
    if name == "tail_sentence":
        return tail_sentence(sources, target_train)
    raise ValueError(f"unknown baseline {name!r}; known: {', '.join(BUILT)}")
