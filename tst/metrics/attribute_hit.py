"""Attribute hit (Yu et al. 2021, §5.1.1): share of a source's attribute-independent words kept in the output.

Hit = Hit number / Total number of words, where the total is the length of the source's (stemmed)
attribute-independent list and the hit number counts its entries whose stem occurs in the stemmed output
(each entry on its own, so a word listed twice counts twice when present).
"""

from __future__ import annotations

import numpy as np

from tst.metrics.base import Context, Metric, MetricResult


def attribute_hit(source_lists: list[list[str]], outputs: list[list[str]]) -> MetricResult:
    """source_lists: stemmed attribute-independent words per source; outputs: output token lists.

    Sentences whose list is empty have no score (None): they are left out of the corpus mean and counted
    in details["n_empty"]. The score is a fraction in [0, 1] (the paper prints percentages).
    """
    from tst.nlp.attributes import stem_tokens  # nltk: imported when scoring (tst.metrics.base)

    if len(source_lists) != len(outputs):
        raise ValueError(f"{len(source_lists)} source lists but {len(outputs)} outputs")
    per_sentence: list[float | None] = []
    for words, out in zip(source_lists, outputs):
        if not words:
            per_sentence.append(None)
            continue
        stems = set(stem_tokens(out))
        per_sentence.append(sum(w in stems for w in words) / len(words))
    scored = [s for s in per_sentence if s is not None]
    return MetricResult(
        name="attribute_hit",
        variant="Yu et al. 2021 attribute hit: share of source's stemmed attribute-independent words in output",
        score=float(np.mean(scored)) if scored else None,
        per_sentence=per_sentence,
        higher_is_better=True,
        details={"n_scored": len(scored), "n_empty": len(per_sentence) - len(scored)},
    )


# ---- registry row (tst.metrics.registry) ----


def _attribute_hit(ctx: Context):
    return attribute_hit(ctx.lists, [o.split() if isinstance(o, str) else list(o) for o in ctx.outputs])


ROWS = [
    Metric(
        "attribute_hit",
        "Hit",
        "share of attribute words",
        "content",
        True,
        260,
        (),
        _attribute_hit,
        inputs=("lists",),
    )
]
