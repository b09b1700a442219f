"""Perplexity of transferred text under a pretrained LM (Pang & Gimpel 2019 §3.2 "PP")."""

from __future__ import annotations

import math

import numpy as np

from tst.metrics.base import Context, Metric, MetricResult
from tst.names import LANGUAGE_MODELS

# Shen et al.'s code, shentianxiao/language-style-transfer code/language_model.py line 92 (commit 8eab5fa,
# "not consider eos in ppl", 2018-01-30): weights = [1.0] * l + [0.0] * (max_len - l + 1), so the final
# <eos> is left out of both the summed NLL and the token count (before that commit, ba55dac, it was counted).
SHEN_EOS = (
    "corpus PP = exp(sum of word NLL / number of words), per word also on BPE datasets (a word's NLL = the sum "
    "of its pieces', tst.data.bpe.word_nll), the final <eos> not counted (Shen et al.'s code: "
    "language-style-transfer code/language_model.py l. 92, commit 8eab5fa 'not consider eos in ppl'); an empty "
    "output (no word) is not left out: it counts as L tokens at NLL m each, L the longest output's word count, "
    "m the largest NLL of any counted word or of an empty output's <eos> in this corpus (ours: removing a "
    "sentence and adding L >= its length tokens at m >= every sentence's mean never lowers the pooled PP)"
)
WITH_EOS = (
    "corpus PP = exp(sum of token NLL / number of tokens), tokens include the final <eos> (variant, not the "
    "papers' code); an empty output counts as its <eos> alone (one token, NLL of ending at once), not left out"
)
VARIANT = SHEN_EOS


def _tokens(s) -> list[str]:
    return s.split() if isinstance(s, str) else list(s)


def _nll_lists(sentences, lm, count_eos: bool = False) -> list[np.ndarray]:
    """Per sentence, the NLL of each counted token: every word, plus the final <eos> when `count_eos` or when
    the sentence has no word (an empty output is its <eos> alone, so it stays in the pool)."""
    nll = lm.token_nll([_tokens(s) for s in sentences])
    if len(nll) != len(sentences):
        raise ValueError(f"token_nll returned {len(nll)} arrays for {len(sentences)} sentences")
    out = [np.asarray(x, dtype=np.float64).reshape(-1) for x in nll]
    return out if count_eos else [x[:-1] if _tokens(s) else x for x, s in zip(out, sentences)]


def worst_for_empty(nll: list[np.ndarray], empty: list[bool]) -> list[np.ndarray]:
    """The <eos>-free convention's rule for empty outputs (see SHEN_EOS): each empty output's NLL array
    (its <eos> alone) becomes L copies of m, L = the most words in any non-empty output (1 if none), m = the
    largest NLL in the corpus (any word's, any empty output's <eos>)."""
    if not any(empty):
        return nll
    m = max(float(x.max()) for x in nll if len(x))
    n_words = max((len(x) for x, e in zip(nll, empty) if not e), default=1)
    return [np.full(n_words, m) if e else x for x, e in zip(nll, empty)]


def pp_stats(nll: list[np.ndarray], empty: list[bool], worst: bool) -> dict:
    """Per sentence, what tst.bootstrap.pp_statistic needs to recompute corpus PP on a resample: the sum and
    count of its counted tokens' NLL and their largest (before worst_for_empty), whether it is empty, and
    whether the worst_for_empty rule applies (`worst`)."""
    return {
        "kind": "pp",
        "nll_sum": [float(x.sum()) for x in nll],
        "n_tokens": [len(x) for x in nll],
        "max_nll": [float(x.max()) if len(x) else -math.inf for x in nll],
        "empty": list(empty),
        "worst_for_empty": worst,
    }


def _result(name, variant, nll, lm_names, n_empty: int) -> MetricResult:
    total = float(sum(x.sum() for x in nll))
    count = int(sum(len(x) for x in nll))
    per = [float(math.exp(x.mean())) if len(x) else None for x in nll]
    score = math.exp(total / count) if count else None
    return MetricResult(
        name,
        variant,
        score,
        per,
        False,
        {
            "n": len(nll),
            "n_tokens": count,
            "total_nll": total,
            "lm": lm_names,
            "n_empty": n_empty,
        },
    )


def _n_empty(sentences) -> int:
    return sum(1 for s in sentences if not _tokens(s))


def perplexity(
    sentences, lm, name: str = "pp_joint", lm_name: str = "joint", count_eos: bool = False
) -> MetricResult:
    """PP = exp( sum_i sum_{t<=|x_i|} -log p(w_it | w_i<t) / sum_i |x_i| ): the words' NLL only, the final
    <eos> left out as in Shen et al.'s code (see SHEN_EOS). `count_eos=True`: today's variant, every sentence's
    <eos> counted in both sums (denominator sum_i (|x_i| + 1)).

    `lm.token_nll(sentences)` returns the natural-log NLL of every token and the final <eos>. Per sentence:
    exp(mean NLL of that sentence's counted tokens). A uniform LM over V gives PP = |V| either way.

    Empty outputs (no word) stay in the pool. Default: `worst_for_empty` (L tokens at the corpus's largest NLL
    m): replacing any output by an empty one removes a sentence whose mean NLL is <= m with n <= L tokens and
    adds L tokens at m, so the pooled mean NLL cannot fall (as long as the replaced output did not itself hold
    the corpus maximum or length). With `count_eos` (the variant):
    An empty output is one token, <eos>, with the LM's NLL of ending right after <bos>; it stays in the pool
    (leaving it out would help whenever the sentence it replaced was worse than average). An LM trained on
    non-empty sentences gives that <eos> a high NLL, so empty lines raise PP; nothing bounds it for any LM.
    """
    variant = WITH_EOS if count_eos else SHEN_EOS
    nll = _nll_lists(sentences, lm, count_eos)
    empty = [not _tokens(s) for s in sentences]
    stats = pp_stats(nll, empty, not count_eos)
    if not count_eos:
        nll = worst_for_empty(nll, empty)
    r = _result(name, f"{variant}; LM: {lm_name}", nll, lm_name, _n_empty(sentences))
    if getattr(lm, "training", None):
        r.details["lm_training"] = lm.training  # softmax kind, cutoffs, epochs, dev PP
    r.resample = stats
    return r


def perplexity_by_style(
    sentences, styles, lms: dict, name: str = "pp_target", count_eos: bool = False
) -> MetricResult:
    """PP of each sentence under the LM of its own (target) style, pooled over the corpus:
    exp( sum_i NLL_{lm[s_i]}(x_i) / sum_i |x_i| ) (with `count_eos`, / sum_i (|x_i| + 1)); empty outputs as in
    `perplexity`. `lms` maps style (int) -> LM with token_nll."""
    if len(sentences) != len(styles):
        raise ValueError(f"{len(sentences)} sentences but {len(styles)} styles")
    nll: list = [None] * len(sentences)
    for style in sorted({int(s) for s in styles}):
        idx = [i for i, s in enumerate(styles) if int(s) == style]
        for i, x in zip(idx, _nll_lists([sentences[i] for i in idx], lms[style], count_eos)):
            nll[i] = x
    empty = [not _tokens(s) for s in sentences]
    stats = pp_stats(nll, empty, not count_eos)
    if not count_eos:
        nll = worst_for_empty(nll, empty)
    variant = WITH_EOS if count_eos else SHEN_EOS
    r = _result(
        name, f"{variant}; LM of each output's target style", nll, "per target style", _n_empty(sentences)
    )
    training = {str(k): lm.training for k, lm in lms.items() if getattr(lm, "training", None)}
    if training:
        r.details["lm_training"] = training
    r.resample = stats
    return r


# ---- registry rows (tst.metrics.registry) ----


def _pp_joint(ctx: Context):
    return perplexity(ctx.outputs, ctx.load(LANGUAGE_MODELS["joint"]), count_eos=ctx.options["pp_count_eos"])


def _pp_target(ctx: Context):
    return perplexity_by_style(
        ctx.outputs,
        ctx.targets,
        {s: ctx.load(LANGUAGE_MODELS[f"style{s}"]) for s in (0, 1)},
        count_eos=ctx.options["pp_count_eos"],
    )


PP_NOTE = "(final <eos> not counted, as Shen et al.'s code; --pp-count-eos counts it)"

ROWS = [
    Metric(
        "pp_joint",
        "PP",
        "perplexity",
        "fluency",
        False,
        80,
        (LANGUAGE_MODELS["joint"],),
        _pp_joint,
        digits=1,
        note=PP_NOTE,
    ),
    Metric(
        "pp_target",
        "PP-target",
        "perplexity",
        "fluency",
        False,
        90,
        (LANGUAGE_MODELS["style0"], LANGUAGE_MODELS["style1"]),
        _pp_target,
        digits=1,
        note=PP_NOTE,
    ),
]
