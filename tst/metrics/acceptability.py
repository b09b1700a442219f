"""Acceptability: mean P(real) of outputs under a real-vs-corrupted classifier (ours; a fluency metric).

The classifier (tst.evaluators.acceptability) is trained on the dataset's training sentences against corrupted
copies of them (word shuffles, drops, repeats, adjacent swaps, random-word replacements). Chosen over PP and
the length-normalised LM scores because it agrees with Li et al.'s grammaticality ratings on Yelp
(docs/fluency.md).
"""

from __future__ import annotations

import numpy as np

from tst.metrics.base import Context, Metric, MetricResult
from tst.names import ACCEPTABILITY

EMPTY_RULE = "an empty output counts as P(real) = 0, the worst value (ours)"


def acceptability(outputs, model, name: str = "acceptability", bf16: bool = False) -> MetricResult:
    """Corpus score: (1/N) sum_i P(real | x'_i) over every output; per sentence P(real | x'_i).

    `model.p_real(token lists) -> array` (tst.evaluators.acceptability.Acceptability). An empty output
    is scored 0 without asking the classifier (it has seen no empty sentence, real or corrupted). bf16: a
    pretrained encoder (minilm) runs in bf16 autocast (tst.metrics.sbert.scoring_bf16), named in the variant.
    """
    inner = getattr(model, "model", model)  # under tst.data.bpe.ModelUnits: the classifier it feeds
    what = getattr(inner, "description", None) or type(inner).__name__
    bf16 = bool(bf16 and getattr(inner, "pretrained", False))
    precision = "; its encoder in bf16 autocast (evaluators.precision)" if bf16 else ""
    variant = (
        f"mean P(real sentence) under a classifier of real vs corrupted training sentences ({what}{precision}); "
        f"{EMPTY_RULE}"
    )
    tokens = [o.split() if isinstance(o, str) else list(o) for o in outputs]
    if not tokens:
        return MetricResult(name, variant, None, [], True, {"n": 0, "n_empty": 0})
    p = np.zeros(len(tokens))
    keep = [i for i, t in enumerate(tokens) if t]
    if keep:
        kept = [tokens[i] for i in keep]
        q = np.asarray(model.p_real(kept, bf16=True) if bf16 else model.p_real(kept), dtype=float).reshape(-1)
        if len(q) != len(keep):
            raise ValueError(f"p_real returned {len(q)} values for {len(keep)} sentences")
        p[keep] = q
    details = {
        "n": len(tokens),
        "n_empty": len(tokens) - len(keep),
        "share_above_half": float((p > 0.5).mean()),
    }
    return MetricResult(name, variant, float(p.mean()), p.tolist(), True, details)


# ---- registry row (tst.metrics.registry) ----


def _acceptability(ctx: Context):
    from tst.metrics.sbert import scoring_bf16

    model = ctx.load(ACCEPTABILITY)
    device = getattr(getattr(model, "classifier", None), "device", None) or "cpu"
    return acceptability(ctx.outputs, model, bf16=scoring_bf16(ctx.options, device))


ROWS = [Metric("acceptability", "Accept", "P(real)", "fluency", True, 100, (ACCEPTABILITY,), _acceptability)]
