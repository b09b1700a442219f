"""Content preservation of Fu et al. 2018 (eqs. 17-18): cosine of [min; mean; max]-pooled word embeddings.

Fu et al. filter sentiment words (a positive/negative word dictionary) on the review data only, use 100d
GloVe, and estimate the metric's lower bound once per dataset from 2,000 random sentence pairs (0.609 on
paper-news, 0.863 on reviews; "Lower Bound for Content Preservation")."""

from __future__ import annotations

import numpy as np

from tst.evaluators.embeddings import describe_embeddings
from tst.metrics.base import (
    EMPTY_COS_RULE,
    STYLE_LEXICON,
    Context,
    Metric,
    MetricResult,
    output_counts,
    worst_if_unusable,
)
from tst.names import EMBEDDINGS

LEXICONS = {
    "vader": "VADER sentiment words (Fu: a positive/negative word dictionary, review data only)",
    "style_lexicon": "Mir et al.'s style-lexicon words (style_lexicon.json; not Fu's choice)",
    "none": "no words filtered (Fu on non-review data)",
}


def _filtered(lexicon_name: str, drop) -> str:
    what = LEXICONS.get(lexicon_name, f"{lexicon_name} lexicon")
    return f"{what}, {len(drop)} words removed" if drop else what


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
    return MetricResult(
        name, variant, score, per, True, {"n": len(per), "n_undefined": len(per) - len(defined), **extra}
    )


def content_preservation(
    sources, outputs, embeddings, style_words=frozenset(), name: str = "cp", lexicon_name: str = "none"
) -> MetricResult:
    """CP = (1/N) sum_i cos(v(x_i), v(x'_i)), v = [min; mean; max] pooling of word embeddings (Fu eqs. 17-18).

    Tokens in `style_words` (Fu: a positive/negative word dictionary, e.g. `vader_words()`) and tokens
    without an embedding are dropped first. An output with nothing left (empty, all out of vocabulary, all
    lexicon words) gives EMPTY_OUTPUT_COS (-1) when the source side is defined; a pair whose source has
    nothing left is undefined and left out (`base.worst_if_unusable`).
    """
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs")
    drop = frozenset(style_words)
    per, out_vecs = [], []
    for s, o in zip(sources, outputs):
        a = pooled_vector(_tokens(s), embeddings, drop)
        b = pooled_vector(_tokens(o), embeddings, drop)
        out_vecs.append(b)
        per.append(worst_if_unusable(a, b, _cos))
    variant = (
        f"Fu et al. 2018 eq. 18: mean cosine of [min;mean;max]-pooled word embeddings of source and "
        f"output; {_filtered(lexicon_name, drop)}; {EMPTY_COS_RULE}; {describe_embeddings(embeddings)}"
    )
    return _result(
        name,
        variant,
        per,
        {"lexicon": lexicon_name, **output_counts(outputs, out_vecs)},
    )


def random_pair_content_preservation(
    sources,
    outputs,
    embeddings,
    style_words=frozenset(),
    seed: int = 0,
    name: str = "cp_random",
    lexicon_name: str = "none",
) -> MetricResult:
    """Per-system variant of Fu's lower bound (not Fu's; Fu's is `content_preservation_lower_bound`):
    cos(v(x_i), v(x'_j)) with j a random other output of this system, j = (i + k_i) mod N,
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
    variant = (
        f"per-system variant of Fu et al. 2018's CP lower bound (ours): CP (eq. 18) of each source with a "
        f"random other output of the system (seed {seed}); {_filtered(lexicon_name, drop)}; "
        f"{describe_embeddings(embeddings)}"
    )
    return _result(name, variant, per, {"lexicon": lexicon_name, "seed": seed})


def content_preservation_lower_bound(
    sources,
    embeddings,
    style_words=frozenset(),
    n_pairs: int = 2000,
    seed: int = 0,
    name: str = "cp_lower_bound",
    lexicon_name: str = "none",
) -> MetricResult:
    """Fu et al. 2018's lower bound of CP, a dataset constant: mean cos(v(x_i), v(x_j)) over `n_pairs` random
    pairs of distinct source sentences, i ~ Uniform{0..N-1}, j = (i + k) mod N, k ~ Uniform{1..N-1}
    (numpy default_rng(seed), i for all pairs drawn first, then k); same pooling and filtering as
    `content_preservation`. Pairs with an empty side are left out. per_sentence is empty (pairs, not
    sentences)."""
    n = len(sources)
    if n < 2:
        return MetricResult(
            name, "Fu et al. 2018 CP lower bound (needs >= 2 sentences)", None, [], True, {"n": n}
        )
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, size=n_pairs)
    second = (first + rng.integers(1, n, size=n_pairs)) % n
    drop = frozenset(style_words)
    vecs = [pooled_vector(_tokens(s), embeddings, drop) for s in sources]
    per = [_cos(vecs[i], vecs[j]) for i, j in zip(first, second)]
    defined = [p for p in per if p is not None]
    variant = (
        f"Fu et al. 2018 CP lower bound (a dataset constant): mean CP (eq. 18) of {n_pairs} random pairs "
        f"of distinct source sentences (seed {seed}); {_filtered(lexicon_name, drop)}; "
        f"{describe_embeddings(embeddings)}"
    )
    return MetricResult(
        name,
        variant,
        float(np.mean(defined)) if defined else None,
        [],
        True,
        {
            "n_pairs": n_pairs,
            "n_undefined": len(per) - len(defined),
            "n_sources": n,
            "lexicon": lexicon_name,
            "seed": seed,
        },
    )


# ---- registry rows (tst.metrics.registry) ----

GLOVE = EMBEDDINGS["glove"]


def _cp_words(ctx: Context):
    lexicon = ctx.options["cp_lexicon"]
    if lexicon == "vader":
        from tst.nlp.vader import vader_words

        return vader_words()
    if lexicon == "style_lexicon":
        from tst.evaluators.style_lexicon import style_words

        return style_words(ctx.load(STYLE_LEXICON))
    return frozenset()


def _cp_lexicon_file(system, options) -> tuple[str, ...]:
    return (STYLE_LEXICON,) if options["cp_lexicon"] == "style_lexicon" else ()


def _cp(ctx: Context):
    return content_preservation(
        ctx.sources, ctx.outputs, ctx.load(GLOVE), _cp_words(ctx), lexicon_name=ctx.options["cp_lexicon"]
    )


def _cp_random(ctx: Context):
    return random_pair_content_preservation(
        ctx.sources,
        ctx.outputs,
        ctx.load(GLOVE),
        _cp_words(ctx),
        seed=ctx.options["cp_seed"],
        lexicon_name=ctx.options["cp_lexicon"],
    )


def _cp_lower_bound(ctx: Context):
    return content_preservation_lower_bound(
        ctx.sources,
        ctx.load(GLOVE),
        _cp_words(ctx),
        seed=ctx.options["cp_seed"],
        lexicon_name=ctx.options["cp_lexicon"],
    )


ROWS = [
    Metric(
        "cp",
        "CP",
        "cosine",
        "content",
        True,
        50,
        (GLOVE,),
        _cp,
        more_evaluators=_cp_lexicon_file,
        note="(words of --cp-lexicon removed; + style_lexicon.json with --cp-lexicon style_lexicon)",
    ),
    Metric(
        "cp_random",
        "CP-random",
        "cosine",
        "content",
        True,
        60,
        (GLOVE,),
        _cp_random,
        more_evaluators=_cp_lexicon_file,
        note="(as cp, each source with a random other output, --cp-seed)",
        vs_human=False,
    ),
    Metric(
        "cp_lower_bound",
        "CP-lower",
        "cosine",
        "content",
        True,
        70,
        (GLOVE,),
        _cp_lower_bound,
        more_evaluators=_cp_lexicon_file,
        vs_human=False,
        note="(Fu's dataset constant: 2,000 random pairs of sources, --cp-seed)",
    ),
]
