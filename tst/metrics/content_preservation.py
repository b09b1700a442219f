"""Content preservation of Fu et al. 2018 (eqs. 17-18): cosine of [min; mean; max]-pooled word embeddings."""

from __future__ import annotations

import numpy as np

from tst.metrics.base import MetricResult


def _tokens(s) -> list[str]:
    return s.split() if isinstance(s, str) else list(s)


def pooled_vector(tokens, embeddings, drop=frozenset()) -> np.ndarray | None:
    """v = [v_min; v_mean; v_max] over the embeddings of tokens not in `drop` (Fu et al. 2018, eq. 17)."""
    vecs = [embeddings.get(t) for t in tokens if t not in drop]
    vecs = [np.asarray(v, dtype=np.float64) for v in vecs if v is not None]
    if not vecs:
        return None
    w = np.stack(vecs)
    return np.concatenate([w.min(axis=0), w.mean(axis=0), w.max(axis=0)])


def _cos(a, b) -> float | None:
    if a is None or b is None:
        return None
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0.0 or nb == 0.0:
        return None
    return float(a @ b / (na * nb))


def _result(name, variant, per, extra) -> MetricResult:
    defined = [p for p in per if p is not None]
    score = float(np.mean(defined)) if defined else None
    return MetricResult(name, variant, score, per, True,
                        {"n": len(per), "n_undefined": len(per) - len(defined), **extra})


def content_preservation(sources, outputs, embeddings, style_words=frozenset(), name: str = "cp",
                         lexicon_name: str = "none") -> MetricResult:
    """CP = (1/N) sum_i cos(v(x_i), v(x'_i)), v = [min; mean; max] pooling of word embeddings (Fu eqs. 17-18).

    Tokens in `style_words` (Fu: a positive/negative word dictionary, e.g. `vader_words()`) and tokens
    without an embedding are dropped first; a pair with an empty side is undefined and left out.
    """
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs")
    drop = frozenset(style_words)
    per = [_cos(pooled_vector(_tokens(s), embeddings, drop), pooled_vector(_tokens(o), embeddings, drop))
           for s, o in zip(sources, outputs)]
    variant = f"Fu et al. 2018 eq. 18: mean cosine of [min;mean;max]-pooled embeddings, style words removed " \
              f"({lexicon_name} lexicon, {len(drop)} words)"
    return _result(name, variant, per, {"lexicon": lexicon_name})


def random_pair_content_preservation(sources, outputs, embeddings, style_words=frozenset(), seed: int = 0,
                                     name: str = "cp_random", lexicon_name: str = "none") -> MetricResult:
    """Lower bound of CP: cos(v(x_i), v(x'_j)) with j a random other output, j = (i + k_i) mod N,
    k_i ~ Uniform{1..N-1} from numpy default_rng(seed); same pooling and filtering as `content_preservation`."""
    n = len(outputs)
    if len(sources) != n:
        raise ValueError(f"{len(sources)} sources but {n} outputs")
    if n < 2:
        return MetricResult(name, "random-pair CP (needs >= 2 sentences)", None, [None] * n, True, {"n": n})
    rng = np.random.default_rng(seed)
    partner = (np.arange(n) + rng.integers(1, n, size=n)) % n
    drop = frozenset(style_words)
    out_vecs = [pooled_vector(_tokens(o), embeddings, drop) for o in outputs]
    per = [_cos(pooled_vector(_tokens(s), embeddings, drop), out_vecs[j]) for s, j in zip(sources, partner)]
    variant = f"CP (Fu et al. 2018 eq. 18) of each source with a random other output (seed {seed}), " \
              f"style words removed ({lexicon_name} lexicon)"
    return _result(name, variant, per, {"lexicon": lexicon_name, "seed": seed})
