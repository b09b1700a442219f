"""Word Mover's Distance on style-masked / style-removed / unmasked text (Mir et al. 2019 §4.3; Kusner et al.
2015), on unit-length word vectors as in Mir et al.'s code."""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np

from tst.evaluators.embeddings import describe_embeddings
from tst.evaluators.style_lexicon import STYLE_MASK, mask_style_words, remove_style_words, style_words
from tst.imports import stand_in, unimportable
from tst.metrics.base import STYLE_LEXICON, Context, Metric, MetricResult
from tst.names import EMBEDDINGS

# One mask token and one masking function for both sides: word2vec_masked.kv is trained on text masked by
# tst.evaluators.style_lexicon, so the masked WMD finds an embedding for the mask.


EMPTY_OUTPUT_WMD = 2.0  # an empty output's WMD: the largest distance between unit vectors, so the worst value


def _tokens(s) -> list[str]:
    return s.split() if isinstance(s, str) else list(s)


class VectorCache:
    """Looks each word up once in an embeddings object (`.get(word) -> vector | None`); unit=True scales
    every vector to length 1 (a zero vector stays zero), as Mir et al.'s `init_sims(replace=True)` and
    gensim 4's `wmdistance(norm=True)`."""

    def __init__(self, embeddings, unit: bool = False):
        self.embeddings = embeddings
        self.unit = unit
        self.table: dict[str, np.ndarray | None] = {}

    def __call__(self, word: str) -> np.ndarray | None:
        if word not in self.table:
            v = self.embeddings.get(word)
            if v is not None:
                v = np.asarray(v, dtype=np.float64)
                n = float(np.linalg.norm(v))
                if self.unit and n > 0.0:
                    v = v / n
            self.table[word] = v
        return self.table[word]


def word_movers_distance(a, b, vectors) -> float | None:
    """WMD(a, b) = min_T sum_ij T_ij ||e_i - e_j||_2  s.t. T 1 = d_a, T^T 1 = d_b, T >= 0,
    with d the normalized bag-of-words (count / length) over tokens that have an embedding
    (Kusner et al. 2015, eq. 1; out-of-vocabulary tokens dropped as in gensim's wmdistance).
    None when either side has no embedded token."""
    ca = Counter(t for t in a if vectors(t) is not None)
    cb = Counter(t for t in b if vectors(t) is not None)
    if not ca or not cb:
        return None
    if ca == cb:
        return 0.0
    wa, wb = list(ca), list(cb)
    A = np.stack([vectors(t) for t in wa])
    B = np.stack([vectors(t) for t in wb])
    M = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))  # Euclidean ground distance
    da = np.array([ca[t] for t in wa], dtype=np.float64)
    db = np.array([cb[t] for t in wb], dtype=np.float64)
    return float(_ot().emd2(da / da.sum(), db / db.sum(), M))


@cache
def _ot():
    """POT (its public ot.emd2: the network simplex, exact). POT imports scikit-learn for its k-means (~0.7 s) and
    networkx for a graph partitioning of ot.gromov (~0.3 s), both optional there, and its toy data generators
    (ot.datasets) import scipy.stats (~0.5 s: SciPy writes its distributions' docstrings); emd2 uses none of them.
    Where another POT version needs scipy.stats elsewhere, POT is imported with it."""
    try:
        with unimportable("sklearn", "networkx", "scipy.stats"), stand_in("ot.datasets"):
            import ot
    except ImportError:
        with unimportable("sklearn", "networkx"):
            import ot
    return ot


MODES = ("masked", "removed", "unmasked")


def wmd(
    sources,
    outputs,
    embeddings,
    style_words=frozenset(),
    mode: str = "masked",
    name: str | None = None,
    mask: str = STYLE_MASK,
    embedding_label: str | None = None,
) -> MetricResult:
    """Mean WMD between source and output on unit-length word vectors (Mir et al.'s init_sims(replace=True),
    gensim 4's wmdistance default) after masking (mode="masked": each style word -> `mask`) or removing
    (mode="removed") the words of a style lexicon, or on the text as it is (mode="unmasked"; Mir et al.'s
    third setting, which Pang 2019 §3.1 recommends when style words cannot be told from content words).
    Lower is better; identical texts give 0. An output with no usable word (empty, or no embedded token left
    after masking / removal) gives EMPTY_OUTPUT_WMD (2, the largest possible WMD on unit vectors: a bound, not
    a corpus statistic) when the source side is defined, so no output can lower the mean by being unusable
    (ours); a pair whose source has no embedded token is undefined and left out."""
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs")
    if mode == "masked":

        def prep(s):
            return mask_style_words(_tokens(s), style_words, mask)
    elif mode == "removed":

        def prep(s):
            return remove_style_words(_tokens(s), style_words)
    elif mode == "unmasked":
        style_words = frozenset()
        prep = _tokens
    else:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    vectors = VectorCache(embeddings, unit=True)
    per, n_no_usable = [], 0
    for s, o in zip(sources, outputs):
        a, b = prep(s), prep(o)
        usable = any(vectors(t) is not None for t in b)
        n_no_usable += bool(_tokens(o)) and not usable
        if not usable and any(vectors(t) is not None for t in a):
            per.append(EMPTY_OUTPUT_WMD)
        else:
            per.append(word_movers_distance(a, b, vectors))
    defined = [p for p in per if p is not None]
    emb = embedding_label or describe_embeddings(embeddings)
    empty = " (THE STYLE LEXICON IS EMPTY: this equals the unmasked WMD)" if not style_words else ""
    what = {
        "masked": f"after style-lexicon words masked as {mask!r} ({len(style_words)} words{empty})",
        "removed": f"after style-lexicon words removed ({len(style_words)} words{empty})",
        "unmasked": "on the text as it is (no style words masked or removed)",
    }[mode]
    variant = (
        f"Mir et al. 2019: mean WMD (POT emd2, normalized BOW, Euclidean distance of unit-length "
        f"vectors) {what}; an output with no usable word (empty, or no embedded token left) counts as WMD 2, "
        f"the largest distance of unit vectors (ours); a pair whose source has no embedded token left is "
        f"undefined and left out; {emb}"
    )
    return MetricResult(
        name or f"wmd_{mode}",
        variant,
        float(np.mean(defined)) if defined else None,
        per,
        False,
        {
            "n": len(per),
            "n_undefined": len(per) - len(defined),
            "n_empty": sum(1 for o in outputs if not _tokens(o)),
            "n_no_usable_words": n_no_usable,
            "n_style_words": len(style_words),
            # without an embedding for the mask token, masking drops style words
            **({"mask_in_vocab": vectors(mask) is not None} if mode == "masked" else {}),
        },
    )


# ---- registry rows (tst.metrics.registry) ----


def _wmd(mode: str, kv: str):
    def compute(ctx: Context):
        words = style_words(ctx.load(STYLE_LEXICON)) if mode != "unmasked" else frozenset()
        return wmd(ctx.sources, ctx.outputs, ctx.load(kv), words, mode)

    return compute


W2V, W2V_MASKED = EMBEDDINGS["word2vec"], EMBEDDINGS["word2vec_masked"]
ROWS = [
    Metric(
        "wmd_masked",
        "WMD-masked",
        "WMD",
        "content",
        False,
        140,
        (STYLE_LEXICON, W2V_MASKED),
        _wmd("masked", W2V_MASKED),
    ),
    Metric(
        "wmd_removed", "WMD-removed", "WMD", "content", False, 150, (STYLE_LEXICON, W2V), _wmd("removed", W2V)
    ),
    Metric("wmd_unmasked", "WMD-unmasked", "WMD", "content", False, 160, (W2V,), _wmd("unmasked", W2V)),
]
