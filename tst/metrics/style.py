"""The style score (ours), by the all-MiniLM-L6-v2 style classifier (tst.evaluators.classifiers.train_minilm,
evaluator file style_minilm.pt), chosen on Li et al.'s Yelp sentiment ratings by the rule declared in
docs/style_and_gm.md; the CNN Acc (tst.metrics.acc) stays Pang & Gimpel's Acc.

    own(y)     = min over the own parts p of y of P(target | p)         (tst.nlp.parts.split_parts: sentences
                                                                       and clauses)
    kept(y, x) = min over the content parts p of y of P(target | p)     (tst.nlp.parts.content_parts: the
                                                                       source's run where y contains it, the
                                                                       material y keeps of x where y adds more,
                                                                       and x's own words where they read as x)
    R(y | x)   = own(y)          where kept(y, x) > TRANSFERRED (1/2), or y has no content parts
               = MIXED own(y)    where kept(y, x) <= 1/2: the source's content still reads in the source's style
    style      = (1/N) sum_i R(y_i | x_i)                              (y_i the output of source x_i; an empty
                                                                       output: 0)

A sentence is in the target style only where every part of it is: "the food was cold , but overall it was great !"
keeps a complaint. An output whose material that carries its source's content still reads in the source's style
is mixed: whatever it adds, it reads below the classifier's decision (MIXED = 1/2 of its own reading, so never a
transfer), ordered by how on-style its own words read, as people rate such mixed rewrites between the two styles.
The default GM (tst.metrics.joint) takes each output's gain over its source, read by the same rule, where the
output crossed into the target style,

    s_i = R(y_i | x_i) - R(x_i | x_i)   if R(y_i | x_i) > TRANSFERRED (1/2) >= R(x_i | x_i), else 0

so that an unchanged copy (the same parts as its source) adds exactly 0 to it whatever the classifier thinks of it,
and so does any output one part of which still reads in the source's style — its kept material (the source's
content, however lightly edited) among them — whatever it adds: a small gain that does not cross the
classifier's decision is not a transfer; nor can a transfer be seen from a source the classifier already reads as
the target style.
"""

from __future__ import annotations

import numpy as np

from tst.metrics.acc import EMPTY_FAILS, empty_mask
from tst.metrics.base import Context, Metric, MetricResult
from tst.names import CLASSIFIERS
from tst.nlp.parts import content_parts, split_parts, unchanged_part

MINILM = CLASSIFIERS["minilm"]
VARIANT = (
    "mean over outputs of the least P(target style) of their parts (sentences, clauses), halved where the "
    "material that carries the source's content (the source's words where the output contains them, the output's "
    "material aligned to its source where it adds more; tst.nlp.parts, tst.nlp.align) reads in the source's style, "
    "by all-MiniLM-L6-v2 fine-tuned as the dataset's style classifier (ours)"
)
COUNTERFACTUALS = "the style classifier also trained on rule-made counterfactual negations (tst.nlp.negation)"
VADER_LABELS = (
    "the style classifier trained on the sentences VADER reads as their style's sentiment (tst.nlp.vader)"
)


SENTENCE_LABELS = "the style classifier also trained on SST-2's sentence-level labels ({})"


def classifier_note(classifier) -> str:
    """What a variant adds for a style classifier trained with evaluators.minilm.labels vader, counterfactuals or
    sentence_labels; else ""."""
    notes = [VADER_LABELS] if getattr(classifier, "labels", "corpus") == "vader" else []
    how = getattr(classifier, "sentence_labels", None)
    notes += (
        [SENTENCE_LABELS.format("mixed with the dataset's" if how == "mixed" else "first")] if how else []
    )
    notes += [COUNTERFACTUALS] if getattr(classifier, "counterfactuals", False) else []
    return "".join(f"; {n}" for n in notes)


def target_probs(sentences, target_styles, classifier) -> np.ndarray:
    """P(target style) of each sentence (token lists or strings), each distinct sentence read once (an output's
    parts repeat its source's, and the gaming battery's forms share their sources' parts)."""
    tokens = [tuple(s.split()) if isinstance(s, str) else tuple(s) for s in sentences]
    row = {}
    rows = [row.setdefault(t, len(row)) for t in tokens]
    probs = np.asarray(classifier.predict_proba([list(t) for t in row]), dtype=np.float64)
    return probs[np.asarray(rows, dtype=int), np.asarray(target_styles, dtype=int)]


def _tokens(s) -> list[str]:
    return s.split() if isinstance(s, str) else list(s)


# an output has changed style only where its least on-style part reads as the target style and its source's does not
TRANSFERRED = 0.5
MIXED = 0.5  # R of an output whose source's content still reads in the source's style: this share of its own
# reading (at most 1/2: never a transfer)
SAME_STYLE = 1.0  # the source's own words read as the source does: their log-odds of the target style at most
# this much above the source's (odds within a factor e)


def log_odds(p) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)


def reads_as_source(p, p_source) -> np.ndarray:
    """Whether text read at P(target) p reads as its source, read at p_source, does: its log-odds of the target
    style at most SAME_STYLE above the source's."""
    return log_odds(p) <= log_odds(p_source) + SAME_STYLE


OWN, CONTENT, SAME, SOURCE = range(4)  # part_probs: what each part read is


def part_probs(outputs, sources, target_styles, classifier) -> np.ndarray:
    """R(y_i | x_i) (module docstring): the least P(target style) over the output's own parts, times MIXED where
    the output is mixed: where its content parts (tst.nlp.parts.content_parts) read at most TRANSFERRED, or where
    its unchanged source words (tst.nlp.parts.unchanged_part) read as its source does (the log-odds of their least
    part at most SAME_STYLE above those of the source's least part: the words the output put in place of others
    did not move the source's style) and at most TRANSFERRED. A source of None: the own parts alone. Every part
    read in one call of the classifier."""
    texts, owner, kind = [], [], []

    def read(i, parts, k):
        texts.extend(parts)
        owner.extend([i] * len(parts))
        kind.extend([k] * len(parts))

    for i, (y, x) in enumerate(zip(outputs, sources)):
        y, x = _tokens(y), None if x is None else _tokens(x)
        read(i, split_parts(y), OWN)
        if x is None:
            continue
        read(i, content_parts(y, x), CONTENT)
        same = unchanged_part(y, x)
        if same is not None:
            read(i, [same, *split_parts(same)], SAME)
            read(i, split_parts(x), SOURCE)
    least = np.full((4, len(outputs)), np.inf)
    if texts:
        probs = target_probs(texts, [target_styles[i] for i in owner], classifier)
        np.minimum.at(least, (np.asarray(kind), np.asarray(owner)), probs)
    own, content, same, source = least
    veto = np.isfinite(same) & reads_as_source(same, source)  # (log_odds clips the unread inf)
    content = np.minimum(content, np.where(veto, same, np.inf))
    return np.where(content <= TRANSFERRED, MIXED * own, own)


def style_probability(outputs, target_styles, classifier, name: str = "style", sources=None) -> MetricResult:
    """Per sentence R(y_i | x_i) (0 for an empty output; sources None: the output's own parts alone); the corpus
    score is their mean."""
    if len(outputs) != len(target_styles) or (sources is not None and len(sources) != len(outputs)):
        raise ValueError(
            f"{len(outputs)} outputs, {len(target_styles)} target styles"
            + (f", {len(sources)} sources" if sources is not None else "")
        )
    variant = f"{VARIANT}{classifier_note(classifier)}; {EMPTY_FAILS}"
    if not outputs:
        return MetricResult(name, variant, None, [], True, {"n": 0})
    p = part_probs(
        outputs, sources if sources is not None else [None] * len(outputs), target_styles, classifier
    )
    empty = empty_mask(outputs)
    p[empty] = 0.0
    details = {"n": len(outputs), "n_empty": int(empty.sum()), "n_right": int((p > 0.5).sum())}
    return MetricResult(name, variant, float(p.mean()), p.tolist(), True, details)


def style_gain(sources, outputs, target_styles, classifier) -> np.ndarray:
    """Per sentence s_i = R(y_i | x_i) - R(x_i | x_i) where the output crossed into the target style (R(y_i | x_i)
    > TRANSFERRED >= R(x_i | x_i)), else 0 (0 for an empty output)."""
    if not (len(sources) == len(outputs) == len(target_styles)):
        raise ValueError(
            f"{len(sources)} sources, {len(outputs)} outputs, {len(target_styles)} target styles"
        )
    if not outputs:
        return np.zeros(0)
    gain = gain_of(
        part_probs(outputs, sources, target_styles, classifier),
        part_probs(sources, sources, target_styles, classifier),
    )
    gain[empty_mask(outputs)] = 0.0
    return gain


def gain_of(r_outputs, r_sources) -> np.ndarray:
    """s_i = R(y_i | x_i) - R(x_i | x_i) where R(y_i | x_i) > TRANSFERRED >= R(x_i | x_i), else 0 (module
    docstring)."""
    r_y, r_x = np.asarray(r_outputs, dtype=np.float64), np.asarray(r_sources, dtype=np.float64)
    return np.where((r_y > TRANSFERRED) & (r_x <= TRANSFERRED), r_y - r_x, 0.0)


# ---- registry row (tst.metrics.registry) ----


def _style(ctx: Context):
    return style_probability(ctx.outputs, ctx.targets, ctx.classifier(MINILM), sources=ctx.sources)


ROWS = [
    Metric(
        "style",
        "Style",
        "P(target style), least part",
        "style",
        True,
        5,
        (MINILM,),
        _style,
        note="(ours: the default GM's style classifier)",
    )
]
