"""The style score (ours), by the all-MiniLM-L6-v2 style classifier (tst.evaluators.classifiers.train_minilm,
evaluator file style_minilm.pt), chosen on Li et al.'s Yelp sentiment ratings by the rule declared in
docs/style_and_gm.md; the CNN Acc (tst.metrics.acc) stays Pang & Gimpel's Acc.

    style = (1/N) sum_i P(target | y_i)                 (y_i the output; an empty output: 0)

The default GM (tst.metrics.joint) takes each output's gain over its source instead,

    s_i = [P(target | y_i) - P(target | x_i)]_+         (x_i the source)

so that an unchanged copy adds exactly 0 to it whatever the classifier thinks of the source.
"""

from __future__ import annotations

import numpy as np

from tst.metrics.acc import EMPTY_FAILS, empty_mask
from tst.metrics.base import Context, Metric, MetricResult
from tst.names import CLASSIFIERS

MINILM = CLASSIFIERS["minilm"]
VARIANT = "mean over outputs of P(target style) by all-MiniLM-L6-v2 fine-tuned as the dataset's style classifier (ours)"
COUNTERFACTUALS = "the style classifier also trained on rule-made counterfactual negations (tst.nlp.negation)"
VADER_LABELS = (
    "the style classifier trained on the sentences VADER reads as their style's sentiment (tst.nlp.vader)"
)


def classifier_note(classifier) -> str:
    """What a variant adds for a style classifier trained with evaluators.minilm.labels vader or
    counterfactuals; else ""."""
    notes = [VADER_LABELS] if getattr(classifier, "labels", "corpus") == "vader" else []
    notes += [COUNTERFACTUALS] if getattr(classifier, "counterfactuals", False) else []
    return "".join(f"; {n}" for n in notes)


def target_probs(sentences, target_styles, classifier) -> np.ndarray:
    """P(target style) of each sentence (token lists or strings)."""
    tokens = [s.split() if isinstance(s, str) else list(s) for s in sentences]
    probs = np.asarray(classifier.predict_proba(tokens), dtype=np.float64)
    return probs[np.arange(len(tokens)), np.asarray(target_styles, dtype=int)]


def style_probability(outputs, target_styles, classifier, name: str = "style") -> MetricResult:
    """Per sentence P(target | y_i) (0 for an empty output); the corpus score is their mean."""
    if len(outputs) != len(target_styles):
        raise ValueError(f"{len(outputs)} outputs but {len(target_styles)} target styles")
    variant = f"{VARIANT}{classifier_note(classifier)}; {EMPTY_FAILS}"
    if not outputs:
        return MetricResult(name, variant, None, [], True, {"n": 0})
    p = target_probs(outputs, target_styles, classifier)
    empty = empty_mask(outputs)
    p[empty] = 0.0
    details = {"n": len(outputs), "n_empty": int(empty.sum()), "n_right": int((p > 0.5).sum())}
    return MetricResult(name, variant, float(p.mean()), p.tolist(), True, details)


def style_gain(sources, outputs, target_styles, classifier) -> np.ndarray:
    """Per sentence s_i = [P(target | y_i) - P(target | x_i)]_+ (0 for an empty output)."""
    if not (len(sources) == len(outputs) == len(target_styles)):
        raise ValueError(
            f"{len(sources)} sources, {len(outputs)} outputs, {len(target_styles)} target styles"
        )
    if not outputs:
        return np.zeros(0)
    gain = np.maximum(
        target_probs(outputs, target_styles, classifier) - target_probs(sources, target_styles, classifier),
        0.0,
    )
    gain[empty_mask(outputs)] = 0.0
    return gain


# ---- registry row (tst.metrics.registry) ----


def _style(ctx: Context):
    return style_probability(ctx.outputs, ctx.targets, ctx.classifier(MINILM))


ROWS = [
    Metric(
        "style",
        "Style",
        "P(target style)",
        "style",
        True,
        5,
        (MINILM,),
        _style,
        note="(ours: the default GM's style classifier)",
    )
]
