"""BLEU (Papineni et al. 2002) against the sources (self-BLEU) or human references (ref-BLEU).

Two named variants:
- corpus: corpus BLEU-4 identical to multi-bleu.perl on tokenized text (sacrebleu, tokenize="none",
  force=True, no lowercasing, no smoothing): BP * exp(1/4 sum_n log p_n), p_n = clipped n-gram matches /
  hypothesis n-grams summed over the corpus, BP = exp(1 - r/c) if c < r else 1, r = sum of the reference
  lengths closest to each hypothesis length (ties -> the shorter); 0 when some p_n = 0.
- sentence: mean sentence BLEU-4 x 100, nltk sentence_bleu with SmoothingFunction().method1: a p_n whose
  numerator is 0 becomes 0.1 / (number of hypothesis n-grams); uniform weights; BP from the closest
  reference length. Text as already tokenized (split on spaces), cased. Smoothed, so it is NOT the Style
  Transformer evaluator's number; that one is:
- st: the Style Transformer evaluator (Dai et al. 2019; fastnlp/style-transformer evaluator/evaluator.py,
  nltk_bleu / self_bleu_b / yelp_ref_bleu): each line lowercased and stripped, nltk word_tokenize, nltk
  sentence_bleu with its defaults (BLEU-4, no smoothing: 0 when some n-gram order has no match), x 100,
  mean over all sentences. word_tokenize's sentence splitter (punkt) is a download, so the line is split by
  its word tokenizer alone (word_tokenize(..., preserve_line=True)); on one-sentence lines the tokens are
  the same.
Both sentence variants are computed by sentence_bleu4: nltk's sentence_bleu in its own arithmetic, the same
floats (tested against nltk), ~2x faster.
"""

from __future__ import annotations

import functools
import math
import sys
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from tst.imports import load_nltk
from tst.io import InputError, read_lines
from tst.metrics.base import INPUTS, Context, Metric, MetricResult, Skip, with_references

if TYPE_CHECKING:  # nltk and sacrebleu are imported when scoring (tst.metrics.base)
    from sacrebleu.metrics import BLEU

CORPUS_VARIANT = (
    "corpus BLEU-4, multi-bleu.perl-compatible (sacrebleu tokenize=none force=True, "
    "cased, no smoothing), tokenized text; an empty hypothesis adds no n-grams and no length, as "
    "in multi-bleu.perl, so emptying a wrong output can raise it (counted: empty_hypotheses)"
)


def _line(s) -> str:
    return s if isinstance(s, str) else " ".join(s)


def _check(outputs, references):
    if len(outputs) != len(references):
        raise ValueError(f"{len(outputs)} outputs but {len(references)} reference sets")
    for r in references:
        if not r:
            raise ValueError("every output needs at least one reference")


def _corpus_metric() -> BLEU:
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize="none", force=True, lowercase=False, smooth_method="none")


def corpus_bleu_settings(metric: BLEU | None = None) -> dict:
    """The settings BLEU.compute_bleu needs to score summed statistics as corpus_bleu does."""
    metric = metric or _corpus_metric()
    return {
        "smooth_method": metric.smooth_method,
        "smooth_value": metric.smooth_value,
        "effective_order": metric.effective_order,
        "max_ngram_order": metric.max_ngram_order,
    }


def corpus_bleu(outputs, references, name: str = "bleu_ref_corpus") -> MetricResult:
    """Corpus BLEU x 100 as multi-bleu.perl computes it. `references[i]` is a list of one or more
    reference strings for `outputs[i]` (the count may vary per sentence)."""
    _check(outputs, references)
    hyps = [_line(o) for o in outputs]
    k = max(len(r) for r in references)
    streams = [[_line(r[j]) if j < len(r) else None for r in references] for j in range(k)]
    metric = _corpus_metric()
    res = metric.corpus_score(hyps, streams)
    # per-sentence sufficient statistics (sys_len, ref_len, correct and total n-grams per order), from which
    # tst.bootstrap recomputes corpus BLEU on a resample, as sacreBLEU's own paired bootstrap does
    # (sacrebleu/significance.py uses the same private method)
    stats = metric._extract_corpus_statistics(hyps, streams)
    return MetricResult(
        name,
        CORPUS_VARIANT,
        float(res.score),
        [],
        True,
        {
            "n": len(hyps),
            "precisions": [float(p) for p in res.precisions],
            "bp": float(res.bp),
            "sys_len": int(res.sys_len),
            "ref_len": int(res.ref_len),
            "max_refs": k,
            "empty_hypotheses": sum(1 for h in hyps if not h.strip()),
            # sacreBLEU's own signature of these settings (nrefs:var when outputs have different numbers)
            "sacrebleu_signature": str(metric.get_signature()),
        },
        resample={
            "kind": "bleu",
            "stats": [list(map(int, row)) for row in stats],
            "settings": corpus_bleu_settings(metric),
        },
    )


@functools.lru_cache(maxsize=200_000)
def _ngram_counts(tokens: tuple[str, ...]) -> tuple[Counter, ...]:
    """The 1- to 4-gram counts of a token tuple (nltk's Counter(ngrams(tokens, n)); none when shorter than n),
    cached: a scoring job meets each source and many outputs again at every checkpoint."""
    return tuple(Counter(zip(*(tokens[i:] for i in range(n)))) for n in range(1, 5))


def sentence_bleu4(references, hypothesis, smoothing: str = "method1") -> float:
    """nltk's sentence_bleu(references, hypothesis) (nltk 3.10.4: BLEU-4, uniform weights) with smoothing
    "method1" (SmoothingFunction().method1) or "none" (its default, method0), in nltk's arithmetic and so the
    same float, bit for bit (tests/metrics/test_bleu.py), without its Fractions, its n-gram counts made again
    for every call, and its warning for every sentence without a 4-gram match: 1/3 of a demo score job's time
    went there. references: token tuples (at least one), hypothesis: a token tuple."""
    hyp = _ngram_counts(hypothesis)
    refs = [_ngram_counts(r) for r in references]
    p_n = []
    for n, counts in enumerate(hyp):
        # modified_precision: each n-gram's count clipped to its largest count in one reference
        if len(refs) == 1:
            get = refs[0][n].get
            matches = sum(min(c, get(g, 0)) for g, c in counts.items())
        else:
            matches = sum(min(c, max(r[n].get(g, 0) for r in refs)) for g, c in counts.items())
        total = max(1, sum(counts.values()))
        if matches:
            p_n.append(matches / total)  # float(Fraction(matches, total)), as math.log reads it
        elif n == 0:
            return 0.0  # nltk: no unigram match gives 0 whatever the smoothing
        else:
            # method1: epsilon 0.1 for the zero numerator; method0: the smallest float (so its log counts)
            p_n.append(0.1 / total if smoothing == "method1" else sys.float_info.min)
    hyp_len = len(hypothesis)
    # closest_ref_length (ties: the shorter) and brevity_penalty
    ref_len = min((len(r) for r in references), key=lambda length: (abs(length - hyp_len), length))
    bp = 1 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return bp * math.exp(math.fsum(0.25 * math.log(p) for p in p_n))


def _bleu100(hyp: tuple[str, ...], refs: list[tuple[str, ...]], smoothing: str) -> float:
    """100 x sentence_bleu4; an empty hypothesis scores 0 (as in nltk: brevity penalty 0, no unigram match)."""
    return 100.0 * sentence_bleu4(refs, hyp, smoothing) if hyp else 0.0


def sentence_bleu_mean(
    outputs, references, name: str = "bleu_ref_sentence", smoothing: str = "method1"
) -> MetricResult:
    """(100 / N) sum_i sentence_bleu(references_i, output_i) with nltk (Style Transformer's evaluator).

    smoothing="method1" (default): nltk SmoothingFunction().method1 (epsilon 0.1 added to zero
    numerators); smoothing="none": nltk's default method0, as in fastnlp/style-transformer
    evaluator/evaluator.py, which passes no smoothing function.
    """
    _check(outputs, references)
    if smoothing not in ("method1", "none"):
        raise ValueError(f"smoothing must be 'method1' or 'none', not {smoothing!r}")
    per = [
        _bleu100(tuple(_line(o).split()), [tuple(_line(r).split()) for r in refs], smoothing)
        for o, refs in zip(outputs, references)
    ]
    variant = f"mean sentence BLEU-4 x 100, nltk sentence_bleu, smoothing {smoothing}, tokenized text, cased"
    return MetricResult(name, variant, float(np.mean(per)) if per else None, per, True, {"n": len(per)})


@functools.lru_cache(maxsize=200_000)
def _st_tokens(text: str) -> tuple[str, ...]:
    """The Style Transformer evaluator's tokens: nltk word_tokenize of the lowercased, stripped line (cached:
    a scoring job tokenizes the same sources and references for every checkpoint; style_transformer_bleu has
    loaded nltk, load_nltk)."""
    from nltk.tokenize import word_tokenize

    return tuple(word_tokenize(text.lower().strip(), preserve_line=True))


def style_transformer_bleu(outputs, references, name: str) -> MetricResult:
    """Mean sentence BLEU x 100 as the Style Transformer evaluator computes it (see the module docstring)."""
    load_nltk()

    def tok(text) -> tuple[str, ...]:
        return _st_tokens(_line(text))

    _check(outputs, references)
    per = [_bleu100(tok(o), [tok(r) for r in refs], "none") for o, refs in zip(outputs, references)]
    variant = (
        "mean sentence BLEU-4 x 100 as the Style Transformer evaluator (fastnlp/style-transformer): "
        "lowercased, nltk word_tokenize, nltk sentence_bleu without smoothing"
    )
    return MetricResult(name, variant, float(np.mean(per)) if per else None, per, True, {"n": len(per)})


def self_bleu(sources, outputs, kind: str = "corpus") -> MetricResult:
    """BLEU of each output against its own source as the single reference (self-BLEU)."""
    refs = [[s] for s in sources]
    if kind == "corpus":
        return corpus_bleu(outputs, refs, name="bleu_self_corpus")
    if kind == "st":
        return style_transformer_bleu(outputs, refs, name="bleu_self_st")
    return sentence_bleu_mean(outputs, refs, name="bleu_self_sentence")


def ref_bleu(outputs, references, kind: str = "corpus") -> MetricResult:
    """BLEU of each output against its human reference(s) (ref-BLEU)."""
    if kind == "corpus":
        return corpus_bleu(outputs, references, name="bleu_ref_corpus")
    if kind == "st":
        return style_transformer_bleu(outputs, references, name="bleu_ref_st")
    return sentence_bleu_mean(outputs, references, name="bleu_ref_sentence")


def read_references(paths, sources, read=read_lines) -> list[list[str] | None]:
    """References per source from `source<TAB>reference[<TAB>reference2...]` files, matched on the exact
    source text (None where a source has no line); a source listed twice gets all its references.
    read: path -> lines (tst.scoring.read passes one that counts replaced bytes); a line without a tab is an
    InputError naming the file and the line."""
    table: dict[str, list[str]] = {}
    for path in paths:
        lines = read(path)
        if not any(line.strip() for line in lines):
            raise InputError(f"no sentences: {path} is empty (expected source<TAB>reference lines)")
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            cols = line.split("\t")
            if len(cols) < 2:
                raise InputError(
                    f"{path}, line {i}: expected source<TAB>reference, got {line!r} (references "
                    f"aligned line by line with a source file become such lines with `paste SOURCE REFS`)"
                )
            table.setdefault(cols[0].strip(), []).extend(c.strip() for c in cols[1:] if c.strip())
    return [table.get(s.strip()) for s in sources]


def ref_bleu_where_given(
    outputs, references, kind: str = "corpus", release: str | None = None
) -> MetricResult | None:
    """ref-BLEU over the sentences that have references (`references[i]` a list, or None/empty where
    sentence i has none); per-sentence values are put back onto the full corpus, None where a sentence has
    no reference; details["n_with_reference"] counts them. None when no sentence has a reference.
    `release` (datasets.<name>.references.release, e.g. "lijuncen/Sentiment-and-Style-Transfer@14a48fa3"):
    named in the variant, since copies of the references in circulation differ."""
    have = with_references(outputs, references)
    if have is None:
        return None
    r = ref_bleu([outputs[i] for i in have], [references[i] for i in have], kind)
    r.details["n_with_reference"] = len(have)
    if release:
        r.variant = f"{r.variant}; against references {release}"
    if r.resample.get("kind") == "bleu":  # a sentence without a reference adds nothing to any sum
        rows = iter(r.resample["stats"])
        zero = [0] * len(r.resample["stats"][0])
        r.resample["stats"] = [next(rows) if references[i] else zero for i in range(len(outputs))]
    if r.per_sentence:
        full = [None] * len(outputs)
        for i, v in zip(have, r.per_sentence):
            full[i] = v
        r.per_sentence = full
    return r


# ---- registry rows (tst.metrics.registry) ----


def _self_bleu(kind: str):
    def compute(ctx: Context):
        return self_bleu(ctx.sources, ctx.outputs, kind)

    return compute


def _ref_bleu(kind: str):
    def compute(ctx: Context):
        r = ref_bleu_where_given(ctx.outputs, ctx.references, kind, ctx.options["references_release"])
        if r is None:
            raise Skip(INPUTS["references"])
        return r

    return compute


UNIT = "BLEU, 0-100"
ROWS = [
    Metric(
        "bleu_self_corpus",
        "self-BLEU",
        UNIT,
        "content",
        True,
        190,
        (),
        _self_bleu("corpus"),
        digits=1,
        vs_human=False,
    ),
    Metric(
        "bleu_self_sentence",
        "self-BLEU-sent",
        UNIT,
        "content",
        True,
        210,
        (),
        _self_bleu("sentence"),
        digits=1,
    ),
    *(
        Metric(
            f"bleu_ref_{kind}",
            label,
            UNIT,
            "content",
            True,
            order,
            (),
            _ref_bleu(kind),
            digits=1,
            inputs=("references",),
            vs_human=False,
        )
        for kind, label, order in (("corpus", "ref-BLEU", 220), ("sentence", "ref-BLEU-sent", 230))
    ),
    Metric("bleu_self_st", "self-BLEU-ST", UNIT, "content", True, 240, (), _self_bleu("st"), digits=1),
    Metric(
        "bleu_ref_st",
        "ref-BLEU-ST",
        UNIT,
        "content",
        True,
        250,
        (),
        _ref_bleu("st"),
        digits=1,
        inputs=("references",),
        vs_human=False,
    ),
]
