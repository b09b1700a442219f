"""chrF (Popović 2015): character n-gram F-score of the outputs against their sources (self-chrF) or human
references (ref-chrF); off by default (score.extra_metrics, `tst score --metrics chrf_self chrf_ref`).

chrF2 as sacreBLEU computes it (sacrebleu.metrics.CHRF with its defaults: character n-grams of orders 1..6,
spaces removed, cased, no word n-grams, beta = 2). Per order n, the output's n-grams matched against the
reference's (each counted at most as often as in the reference) are summed over the corpus, giving
P_n = matched / output n-grams and R_n = matched / reference n-grams (a sentence's output n-grams of an
order its reference has none of are not counted); P and R are the means of P_n and R_n over the orders where
both sides have n-grams (sacreBLEU's effective order), and

    chrF_beta = 100 (1 + beta^2) P R / (beta^2 P + R)        (Popović 2015, eq. 1)

With several references, each sentence counts against the one that gives it the best sentence chrF.
Corpus-level, like corpus BLEU: no per-sentence values.
"""

from __future__ import annotations

from tst.metrics.base import INPUTS, Context, Metric, MetricResult, Skip, with_references

VARIANT = (
    "corpus chrF2 (Popović 2015; sacrebleu CHRF: character 6-grams, beta 2, spaces removed, cased, "
    "effective order) of the tokenized text as stored"
)


def _line(s) -> str:
    return s if isinstance(s, str) else " ".join(s)


def corpus_chrf(outputs, references, name: str = "chrf_ref") -> MetricResult:
    """Corpus chrF2 x 100 of the outputs; `references[i]` is a list of one or more reference strings for
    `outputs[i]` (the count may vary per sentence)."""
    from sacrebleu.metrics import CHRF

    if len(outputs) != len(references) or not all(references):
        raise ValueError(f"{len(outputs)} outputs need as many non-empty reference lists")
    hyps = [_line(o) for o in outputs]
    k = max(len(r) for r in references)
    streams = [[_line(r[j]) if j < len(r) else None for r in references] for j in range(k)]
    score = CHRF().corpus_score(hyps, streams).score
    return MetricResult(name, VARIANT, float(score), [], True, {"n": len(hyps), "max_refs": k})


def self_chrf(sources, outputs) -> MetricResult:
    """chrF of each output against its own source as the single reference (self-chrF)."""
    return corpus_chrf(outputs, [[s] for s in sources], name="chrf_self")


def ref_chrf_where_given(outputs, references, release: str | None = None) -> MetricResult | None:
    """ref-chrF over the sentences that have references (`references[i]` a list, or None/empty where
    sentence i has none; details["n_with_reference"] counts them), the references' release named in the
    variant; None when no sentence has a reference."""
    have = with_references(outputs, references)
    if have is None:
        return None
    r = corpus_chrf([outputs[i] for i in have], [references[i] for i in have], name="chrf_ref")
    r.details["n_with_reference"] = len(have)
    if release:
        r.variant = f"{r.variant}; against references {release}"
    return r


# ---- registry rows (tst.metrics.registry) ----


def _self_chrf(ctx: Context):
    return self_chrf(ctx.sources, ctx.outputs)


def _ref_chrf(ctx: Context):
    r = ref_chrf_where_given(ctx.outputs, ctx.references, ctx.options["references_release"])
    if r is None:
        raise Skip(INPUTS["references"])
    return r


OFF = "(off by default: score.extra_metrics or --metrics)"
ROWS = [
    Metric(
        "chrf_self",
        "self-chrF",
        "chrF2, 0-100",
        "content",
        True,
        280,
        (),
        _self_chrf,
        digits=1,
        note=OFF,
        vs_human=False,
        default=False,
    ),
    Metric(
        "chrf_ref",
        "ref-chrF",
        "chrF2, 0-100",
        "content",
        True,
        290,
        (),
        _ref_chrf,
        digits=1,
        inputs=("references",),
        note=OFF,
        vs_human=False,
        default=False,
    ),
]
