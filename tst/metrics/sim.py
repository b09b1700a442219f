"""Semantic similarity "Sim" (Pang & Gimpel 2019 §3.2): cosine of idf-weighted mean word embeddings."""

from __future__ import annotations

import numpy as np

from tst.evaluators.embeddings import describe_embeddings
from tst.metrics.base import (
    EMPTY_COS_RULE,
    IDF,
    Context,
    Metric,
    MetricResult,
    output_counts,
    worst_if_unusable,
)
from tst.names import EMBEDDINGS

VARIANT = (
    "mean over pairs of cos(v(source), v(output)), v(s) = sum_q idf(q) e(q) / sum_q idf(q) over "
    f"tokens with an embedding; idf(q) = log(|C| / |{{s in C: q in s}}|); {EMPTY_COS_RULE}"
)
# + "; " + the embeddings (Pang & Gimpel: 300d GloVe)


def _tokens(s) -> list[str]:
    return s.split() if isinstance(s, str) else list(s)


def sentence_vector(tokens, embeddings, idf: dict, default_idf: float) -> np.ndarray | None:
    """idf-weighted average of the word embeddings of `tokens` (Pang & Gimpel 2019 §3.2); None if none known."""
    total, weight = None, 0.0
    for q in tokens:
        e = embeddings.get(q)
        if e is None:
            continue
        w = float(idf.get(q, default_idf))
        total = (
            w * np.asarray(e, dtype=np.float64) if total is None else total + w * np.asarray(e, np.float64)
        )
        weight += w
    if total is None or weight == 0.0:
        return None
    return total / weight


def cosine(a: np.ndarray, b: np.ndarray) -> float | None:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return None
    return float(np.dot(a, b) / (na * nb))


def sim(sources, outputs, embeddings, idf: dict, name: str = "sim") -> MetricResult:
    """Sim = (1/N) sum_i cos(v(x_i), v(x'_i)) with v the idf-weighted mean of word embeddings.

    `idf` is the idf.json content {"idf": {word: float}, "n_docs": int, "default": float} (words missing
    from it get "default"); `embeddings` has `.get(word) -> vector | None`. Identical sentences give 1.
    An output with no usable word (empty or nothing embedded) gives EMPTY_OUTPUT_COS (-1, the lowest
    cosine; 0 would still reward it over a pair with a negative cosine) when the source is defined; a pair
    whose source has no embedded token is undefined (None) and left out (`base.worst_if_unusable`).
    """
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs")
    table, default = idf["idf"], float(idf["default"])
    per, out_vecs = [], []
    for s, o in zip(sources, outputs):
        a = sentence_vector(_tokens(s), embeddings, table, default)
        b = sentence_vector(_tokens(o), embeddings, table, default)
        out_vecs.append(b)
        per.append(worst_if_unusable(a, b, cosine))
    defined = [p for p in per if p is not None]
    score = float(np.mean(defined)) if defined else None
    return MetricResult(
        name,
        f"{VARIANT}; {describe_embeddings(embeddings)}",
        score,
        per,
        True,
        {
            "n": len(per),
            "n_undefined": len(per) - len(defined),
            **output_counts(outputs, out_vecs),
        },
    )


# ---- registry row (tst.metrics.registry) ----

GLOVE = EMBEDDINGS["glove"]


def _sim(ctx: Context):
    return sim(ctx.sources, ctx.outputs, ctx.load(GLOVE), ctx.load(IDF))


ROWS = [Metric("sim", "Sim", "cosine", "content", True, 40, (GLOVE, IDF), _sim)]
