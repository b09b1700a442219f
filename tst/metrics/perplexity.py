"""Perplexity of transferred text under a pretrained LM (Pang & Gimpel 2019 §3.2 "PP")."""

from __future__ import annotations

import math

import numpy as np

from tst.metrics.base import MetricResult

VARIANT = (
    "corpus PP = exp(sum of token NLL / number of tokens), tokens include the final <eos>; an empty "
    "output counts as its <eos> alone (one token, NLL of ending at once), not left out"
)


def _tokens(s) -> list[str]:
    return s.split() if isinstance(s, str) else list(s)


def _nll_lists(sentences, lm) -> list[np.ndarray]:
    nll = lm.token_nll([_tokens(s) for s in sentences])
    if len(nll) != len(sentences):
        raise ValueError(f"token_nll returned {len(nll)} arrays for {len(sentences)} sentences")
    return [np.asarray(x, dtype=np.float64).reshape(-1) for x in nll]


def _result(name, variant, nll, lm_names) -> MetricResult:
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
            "n_empty_output": sum(1 for x in nll if len(x) == 1),
        },
    )


def perplexity(sentences, lm, name: str = "pp_joint", lm_name: str = "joint") -> MetricResult:
    """PP = exp( sum_i sum_t -log p(w_it | w_i<t) / sum_i (|x_i| + 1) ), the +1 being each sentence's <eos>.

    `lm.token_nll(sentences)` returns the natural-log NLL of every token and the final <eos>. Per sentence:
    exp(mean NLL of that sentence). A uniform LM over V gives PP = |V|.

    An empty output is one token, <eos>, with the LM's NLL of ending right after <bos>; it stays in the pool
    (leaving it out would help whenever the sentence it replaced was worse than average). An LM trained on
    non-empty sentences gives that <eos> a high NLL, so empty lines raise PP; nothing bounds it for any LM.
    """
    return _result(name, f"{VARIANT}; LM: {lm_name}", _nll_lists(sentences, lm), lm_name)


def perplexity_by_style(sentences, styles, lms: dict, name: str = "pp_target") -> MetricResult:
    """PP of each sentence under the LM of its own (target) style, pooled over the corpus:
    exp( sum_i NLL_{lm[s_i]}(x_i) / sum_i (|x_i| + 1) ). `lms` maps style (int) -> LM with token_nll."""
    if len(sentences) != len(styles):
        raise ValueError(f"{len(sentences)} sentences but {len(styles)} styles")
    nll: list = [None] * len(sentences)
    for style in sorted({int(s) for s in styles}):
        idx = [i for i, s in enumerate(styles) if int(s) == style]
        for i, x in zip(idx, _nll_lists([sentences[i] for i in idx], lms[style])):
            nll[i] = x
    return _result(name, f"{VARIANT}; LM of each output's target style", nll, "per target style")
