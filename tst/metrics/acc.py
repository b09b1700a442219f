"""Post-transfer classification accuracy (Pang & Gimpel 2019 §3.2 "Acc"; Fu et al. 2018 "transfer strength")."""

from __future__ import annotations

import numpy as np

from tst.metrics.base import Context, Metric, MetricResult
from tst.names import CLASSIFIERS


def _tokens(sentences) -> list[list[str]]:
    return [s.split() if isinstance(s, str) else list(s) for s in sentences]


EMPTY_FAILS = "an empty output is a failed transfer (0), whatever the classifier says of it (ours)"


def empty_mask(outputs) -> np.ndarray:
    """True for each output with no token at all."""
    return np.array([not t for t in _tokens(outputs)], dtype=bool)


def output_probs(outputs, target_styles, classifier) -> np.ndarray | None:
    """classifier.predict_proba of the outputs (None when there are none), after checking the alignment; an
    empty output's row puts all its mass on a style other than its target (a failed transfer)."""
    if len(outputs) != len(target_styles):
        raise ValueError(f"{len(outputs)} outputs but {len(target_styles)} target styles")
    if not outputs:
        return None
    probs = np.array(classifier.predict_proba(_tokens(outputs)), dtype=np.float64)
    for i in np.flatnonzero(empty_mask(outputs)):
        t = int(target_styles[i])
        probs[i] = 0.0
        probs[i, 1 if t == 0 else 0] = 1.0
    return probs


def accuracy(
    outputs,
    target_styles,
    classifier,
    name: str = "acc",
    variant: str = "share of outputs whose argmax P(style) is the target style (CNN, Kim 2014)",
) -> MetricResult:
    """Acc = N_right / N_total (Fu et al. 2018, §Transfer Strength; Pang & Gimpel 2019 §3.2).

    N_right counts outputs whose predicted style, argmax_c P(c | output) from `classifier.predict_proba`
    (ties go to style 0), equals the output's target style. Per sentence: 1.0 when right, else 0.0.
    Used for Acc (CNN classifier) and transfer strength (Fu's LSTM-sigmoid, name="transfer_strength",
    where argmax over [1 - s, s] is s > 0.5).
    """
    variant = f"{variant}; {EMPTY_FAILS}"
    probs = output_probs(outputs, target_styles, classifier)
    if probs is None:
        return MetricResult(name, variant, None, [], True, {"n": 0})
    predicted = probs.argmax(axis=1)
    right = (predicted == np.asarray(target_styles, dtype=int)).astype(float)
    return MetricResult(
        name,
        variant,
        float(right.mean()),
        right.tolist(),
        True,
        {"n": len(outputs), "n_right": int(right.sum()), "n_empty": int(empty_mask(outputs).sum())},
    )


def target_probability(
    outputs,
    target_styles,
    classifier,
    name: str = "acc_prob",
    variant: str = "mean over outputs of the CNN's P(target style) (graded per-sentence Acc, "
    "the input of the learned aggregates; not Pang & Gimpel's Acc, which is the 0/1 decision)",
) -> MetricResult:
    """Per sentence P(target style | output) from `classifier.predict_proba`; corpus score their mean."""
    probs = output_probs(outputs, target_styles, classifier)
    if probs is None:
        return MetricResult(name, variant, None, [], True, {"n": 0})
    p = probs[np.arange(len(outputs)), np.asarray(target_styles, dtype=int)]
    details = {"n": len(outputs), "n_empty": int(empty_mask(outputs).sum())}
    return MetricResult(name, f"{variant}; {EMPTY_FAILS}", float(p.mean()), p.tolist(), True, details)


# ---- registry rows (tst.metrics.registry) ----

CNN, LSTM = CLASSIFIERS["cnn"], CLASSIFIERS["lstm"]


def _acc(ctx: Context):
    return accuracy(ctx.outputs, ctx.targets, ctx.classifier(CNN))


def _acc_prob(ctx: Context):
    return target_probability(ctx.outputs, ctx.targets, ctx.classifier(CNN))


def _transfer_strength(ctx: Context):
    return accuracy(
        ctx.outputs,
        ctx.targets,
        ctx.load(LSTM),
        name="transfer_strength",
        variant="Fu et al. 2018 transfer strength: share of outputs the LSTM-sigmoid puts in the "
        "target style",
    )


ROWS = [
    Metric("acc", "Acc", "share of outputs", "style", True, 10, (CNN,), _acc),
    Metric("acc_prob", "Acc-P", "P(target style)", "style", True, 20, (CNN,), _acc_prob),
    Metric("transfer_strength", "TS", "share of outputs", "style", True, 30, (LSTM,), _transfer_strength),
]
