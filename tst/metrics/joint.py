"""The sentence-level joint score of the default GM (ours; the aggregation of Krishna et al. 2020's J, with
this pipeline's factors). Per output y_i of source x_i, three factors in [0, 1]:

    s_i = [P(target | y_i) - P(target | x_i)]_+                 style gain (tst.metrics.style.style_gain)
    c_i = min([cos(e(x_i), e(y_i)) - tau]_+ / (1 - tau), 1)     content above the fixed-sentence bound
    f_i = P(real | y_i)                                          acceptability (tst.metrics.acceptability)

    J = (1/N) sum_i (s_i c_i f_i)^(1/3)

The content factor a table shows is sum_i s_i c_i / sum_i s_i: the content carried into the target style, so that
an output left in its source style (a copy keeps every word) adds nothing to it either.

e = the unit all-MiniLM-L6-v2 embedding (the content score, tst.metrics.sbert). tau is the fixed-sentence bound
of the sources of each style: for one fixed output y of every source x_1..x_n of a style, the mean cosine is
e(y) . (1/n) sum_j e(x_j) <= ||(1/n) sum_j e(x_j)|| (Cauchy-Schwarz), so no fixed sentence, however chosen, has a
mean cosine above tau; tau is computed from the scored sources themselves.

Each output is scored on its own: an output that did not change style has s_i = 0 and adds 0 whatever content
and fluency it keeps, so replacing any outputs by their sources never raises J. The default GM (tst.metrics.gm)
is J above the sanity baselines' J.
"""

from __future__ import annotations

import numpy as np

from tst.metrics.acc import EMPTY_FAILS
from tst.metrics.acceptability import ACCEPTABILITY
from tst.metrics.base import Context, Metric, MetricResult, Skip
from tst.metrics.style import MINILM, classifier_note, style_gain

CONTENT_VARIANT = (
    "sum_i s_i c_i / sum_i s_i: c_i = [cos_i - tau]_+ / (1 - tau) weighted by the style gain s_i (the content "
    "carried into the target style), cos = all-MiniLM-L6-v2 cosine to the source, tau = the fixed-sentence bound "
    "||mean unit embedding of the sources of that style|| (ours)"
)
JOINT_VARIANT = (
    "mean over outputs of (style gain x content above the fixed-sentence bound x acceptability)^(1/3) (ours; "
    "Krishna et al. 2020's sentence-level aggregation)"
)


def fixed_sentence_bound(source_vectors: np.ndarray) -> float:
    """||(1/n) sum_j e(x_j)|| of unit vectors: the highest mean cosine one fixed sentence can have with them."""
    return float(np.linalg.norm(np.asarray(source_vectors, dtype=np.float64).mean(axis=0)))


def content_above_bound(cosines, source_styles, source_vectors) -> tuple[np.ndarray, dict]:
    """c_i = [cos_i - tau_s]_+ / (1 - tau_s) with tau_s the fixed-sentence bound of the sources of style s
    (source_vectors: the unit embeddings of the sources, aligned with cosines); and the taus by style."""
    cos = np.asarray(cosines, dtype=np.float64)
    styles = np.asarray(source_styles, dtype=int)
    vectors = np.asarray(source_vectors, dtype=np.float64)
    tau = {int(s): fixed_sentence_bound(vectors[styles == s]) for s in np.unique(styles)}
    t = np.array([tau[int(s)] for s in styles])
    return np.clip((cos - t) / (1.0 - t), 0.0, 1.0), tau  # a float32 cosine can exceed 1 by 1e-8


def joint(style, content, fluency) -> np.ndarray:
    """(s_i c_i f_i)^(1/3) per sentence (each factor in [0, 1]; None counts as 0)."""
    s, c, f = (np.nan_to_num(np.asarray(x, dtype=np.float64)) for x in (style, content, fluency))
    return np.cbrt(np.clip(s, 0, 1) * np.clip(c, 0, 1) * np.clip(f, 0, 1))


# ---- registry rows (tst.metrics.registry) ----


def _source_vectors(ctx: Context) -> np.ndarray:
    from tst.metrics import sbert

    if not ctx.options["sbert"]:
        raise Skip("needs the MiniLM content score: turn on the scoring option sbert")
    why = sbert.missing()
    if why:
        raise Skip(why)
    return sbert.embed(ctx.sources, sbert.load_model(), bf16=sbert.scoring_bf16(ctx.options))


def _content(ctx: Context):
    cos = ctx.result("sbert_all_minilm_l6_v2").per_sentence
    per, tau = content_above_bound(cos, ctx.source_styles, _source_vectors(ctx))
    clf = ctx.classifier(MINILM)
    s = style_gain(ctx.sources, ctx.outputs, ctx.targets, clf)
    score = float((s * per).sum() / s.sum()) if s.sum() > 0 else None
    details = {"n": len(per), "tau": {str(k): v for k, v in tau.items()}, "style_gain_sum": float(s.sum())}
    r = MetricResult("content", CONTENT_VARIANT + classifier_note(clf), score, per.tolist(), True, details)
    r.resample = {"kind": "ratio", "num": (s * per).tolist(), "den": s.tolist()}
    return r


def _joint(ctx: Context):
    clf = ctx.classifier(MINILM)
    s = style_gain(ctx.sources, ctx.outputs, ctx.targets, clf)
    c = ctx.result("content").per_sentence
    f = ctx.result("acceptability").per_sentence
    per = joint(s, c, f)
    details = {"n": len(per), "n_positive": int((per > 0).sum())}
    variant = f"{JOINT_VARIANT}{classifier_note(clf)}; {EMPTY_FAILS}"
    return MetricResult("joint", variant, float(per.mean()), per.tolist(), True, details)


ROWS = [
    Metric(
        "content",
        "Content",
        "cosine above bound",
        "content",
        True,
        6,
        (MINILM,),
        _content,
        note="(ours: the default GM's content factor, from sbert_all_minilm_l6_v2)",
    ),
    Metric(
        "joint",
        "J",
        "sentence-level joint",
        "overall",
        True,
        7,
        (MINILM, ACCEPTABILITY),
        _joint,
        note="(ours: style x content x acceptability per sentence, the default GM's input)",
        vs_human=False,
    ),
]
