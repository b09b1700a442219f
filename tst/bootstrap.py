"""Which differences are real: paired-bootstrap 95% confidence intervals, p-values and significance clusters
over test sentences.

Resampling (Efron & Tibshirani 1993; Koehn 2004, "Statistical significance tests for machine translation
evaluation", EMNLP): B resamples of the n test sentences, each n indices drawn with replacement by
numpy.random.default_rng(seed).choice(n, (B, n)) as sacreBLEU's paired bootstrap draws them
(sacrebleu/significance.py, _paired_bs_test). The resamples depend on (n, B, seed) only, so every system scored
on the same test set with the same settings is resampled on the SAME sentences: the comparison is paired.

A metric's value on a resample is the metric recomputed on the resampled sentences, not an average of
per-sentence values where the metric is not one:
- per-sentence means (Acc, Acc-P, Sim, CP, WMD, SBERT, sentence BLEU, acceptability, naturalness, STI, ...):
  the mean of the resampled per-sentence values, a None (undefined: e.g. Sim of a source without a usable
  word, ref-BLEU of a sentence without a reference) left out as the metric leaves it out;
- PP: exp(sum of the resampled sentences' word NLL / their word count), empty outputs given the corpus rule
  (tst.metrics.perplexity.worst_for_empty) with the largest NLL and longest output OF THE RESAMPLE, so the
  value equals PP computed directly on the resampled outputs;
- corpus BLEU: BLEU from the sums of the resampled sentences' n-gram statistics (sacreBLEU's sufficient
  statistics, as its paired bootstrap does), equal to sacrebleu's corpus BLEU of the resampled sentences;
- GM: gm (ours) from the resample's J, gm_pg (Pang & Gimpel) from its Acc, Sim and PP.

Interval: the percentile interval, the 2.5th and 97.5th percentiles of the B resampled values (numpy's
linear interpolation). sacreBLEU reports mean +- half the width of its 2.5-97.5 interval instead; we report
the two ends because a bounded or skewed statistic (Acc near 1, PP) has an asymmetric interval.

p-value of "A and B differ" on one metric (Koehn 2004, sec. 4's paired bootstrap, two-sided): with d the
observed difference score(A) - score(B) and d_b its value on resample b, p = min(1, 2 x share of resamples
where d_b has not the sign of d (d_b = 0 included)); p = 1 when d = 0. Identical systems thus get p = 1 and
are never separated. (sacreBLEU's test, which centres |d_b| and counts values above |d|, gives identical
systems p = 1/(B+1); we do not use it.)

Clusters (the ranking of WMT's human evaluation, e.g. Barrault et al. 2019, groups systems that are not
significantly different): systems sorted best first; the first opens cluster 1; each next system joins the
current cluster unless it differs from the cluster's top (first) system at p < alpha (0.05), in which case it
opens the next cluster. A system's rank is its cluster's number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

# The bootstrap's settings: score.bootstrap in the config (tst.stages.bootstrap_options), `tst score
# --ci-resamples/--ci-seed`. 1,000 resamples as sacreBLEU and Koehn 2004.
DEFAULTS = {"n_resamples": 1000, "seed": 0}
LEVEL = 0.95  # two-sided confidence level of the intervals
ALPHA = 0.05  # significance level of the clusters
METHOD = (
    "paired bootstrap over test sentences, {n_resamples} resamples (numpy default_rng({seed})); 95% "
    "percentile interval (2.5th-97.5th percentile of the resampled values); corpus-level metrics (PP, corpus "
    "BLEU, GM) recomputed on each resample"
)


class NotResamplable(ValueError):
    """A metric whose value cannot be recomputed on a resample from what its result keeps."""


def resolve(options: Mapping | None = None) -> dict:
    """DEFAULTS updated with `options`; unknown keys or a resample count below 1 are errors."""
    unknown = set(options or {}) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown bootstrap options {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    out = {**DEFAULTS, **(options or {})}
    out = {"n_resamples": int(out["n_resamples"]), "seed": int(out["seed"])}
    if out["n_resamples"] < 1:
        raise ValueError(f"n_resamples must be at least 1, not {out['n_resamples']}")
    return out


def resample_indices(n: int, n_resamples: int = DEFAULTS["n_resamples"], seed: int = DEFAULTS["seed"]):
    """(n_resamples, n) sentence indices drawn with replacement, as sacreBLEU draws them."""
    if n < 1:
        raise ValueError("no sentences to resample")
    return np.random.default_rng(seed).choice(n, size=(n_resamples, n), replace=True)


def resample_counts(n: int, n_resamples: int = DEFAULTS["n_resamples"], seed: int = DEFAULTS["seed"]):
    """(n_resamples, n): how many times each sentence is drawn in each resample of resample_indices."""
    idx = resample_indices(n, n_resamples, seed)
    flat = idx + n * np.arange(n_resamples)[:, None]
    return np.bincount(flat.ravel(), minlength=n_resamples * n).reshape(n_resamples, n)


def mean_statistic(values, counts) -> np.ndarray:
    """Per resample, the mean of the drawn per-sentence values, None / NaN left out (NaN when a resample
    draws no defined value)."""
    v = np.array([np.nan if x is None else float(x) for x in values], dtype=np.float64)
    defined = ~np.isnan(v)
    w = counts[:, defined].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ v[defined]) / w.sum(axis=1)


def ratio_statistic(stats: Mapping, counts) -> np.ndarray:
    """Per resample, sum(num) / sum(den) over the drawn sentences (a weighted mean: tst.metrics.joint's content,
    the content of each output weighted by its style gain); NaN where the drawn weights sum to 0."""
    w = counts.astype(np.float64)
    num, den = (np.asarray(stats[k], dtype=np.float64) for k in ("num", "den"))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(w @ den > 0, (w @ num) / (w @ den), np.nan)


def pp_statistic(stats: Mapping, counts) -> np.ndarray:
    """Per resample, corpus PP from per-sentence sufficient statistics (tst.metrics.perplexity.pp_stats):
    nll_sum and n_tokens of each sentence's counted tokens, max_nll, empty, and worst_for_empty (the default
    convention: each drawn empty output counts as L tokens at NLL m, L the most words of a drawn non-empty
    output, 1 if none, m the largest NLL of any drawn sentence)."""
    nll = np.asarray(stats["nll_sum"], dtype=np.float64)
    tokens = np.asarray(stats["n_tokens"], dtype=np.float64)
    empty = np.asarray(stats["empty"], dtype=bool)
    w = counts.astype(np.float64)
    if not stats["worst_for_empty"] or not empty.any():
        return np.exp((w @ nll) / (w @ tokens))
    full = ~empty
    drawn = counts > 0
    m = np.where(drawn, np.asarray(stats["max_nll"], dtype=np.float64)[None, :], -np.inf).max(axis=1)
    longest = np.where(drawn & full[None, :], tokens[None, :], 0.0).max(axis=1)
    L = np.where(longest > 0, longest, 1.0)
    n_empty = w[:, empty].sum(axis=1)
    total = w[:, full] @ nll[full] + n_empty * L * m
    count = w[:, full] @ tokens[full] + n_empty * L
    return np.exp(total / count)


def bleu_statistic(stats: Mapping, counts) -> np.ndarray:
    """Per resample, corpus BLEU x 100 from the summed per-sentence statistics of sacreBLEU (sys_len,
    ref_len, correct n-grams 1..N, total n-grams 1..N), with the metric's own settings (bleu_settings)."""
    from sacrebleu.metrics import BLEU

    rows = np.asarray(stats["stats"], dtype=np.float64)
    sums = counts.astype(np.float64) @ rows
    settings = stats["settings"]
    order = settings["max_ngram_order"]
    return np.array(
        [
            BLEU.compute_bleu(
                correct=s[2 : 2 + order].tolist(),
                total=s[2 + order : 2 + 2 * order].tolist(),
                sys_len=int(s[0]),
                ref_len=int(s[1]),
                **settings,
            ).score
            for s in sums
        ]
    )


def is_mean(result, n: int, rel: float = 1e-6) -> bool:
    """Whether `result`'s score is the mean of its n per-sentence values (None left out), to `rel`: a
    classifier's probabilities are float32, whose mean numpy sums in float32 (relative error 5e-8 on 100,000
    values; 1e-6 still tells a mean from any other statistic)."""
    per = result.per_sentence
    if result.score is None or len(per) != n:
        return False
    defined = [float(x) for x in per if x is not None]
    if not defined:
        return False
    return math.isclose(float(np.mean(defined)), float(result.score), rel_tol=rel, abs_tol=1e-12)


def resampled(result, counts) -> np.ndarray:
    """The metric of MetricResult `result` on every resample (counts: resample_counts of its sentences).
    NotResamplable when its result keeps neither sufficient statistics nor per-sentence values whose mean is
    its score (e.g. distinct, cp_lower_bound)."""
    kind = (result.resample or {}).get("kind")
    if kind == "pp":
        return pp_statistic(result.resample, counts)
    if kind == "bleu":
        return bleu_statistic(result.resample, counts)
    if kind == "ratio":
        return ratio_statistic(result.resample, counts)
    if is_mean(result, counts.shape[1]):
        return mean_statistic(result.per_sentence, counts)
    raise NotResamplable(
        f"{result.name}: its score is not a mean of per-sentence values and it keeps no per-sentence "
        "statistics to recompute it on a resample"
    )


def derived_resampled(samples: Mapping[str, np.ndarray], gm_t=None, calibration=None) -> dict:
    """The derived metrics (gm_pg, gm) on every resample, from the resampled factors in `samples` (key ->
    array over resamples, the same resamples for all), with the registry's factors and thresholds; a derived
    metric whose factor or thresholds are missing is left out."""
    from tst.metrics.gm import DEFAULT_T, gm_array, gm_calibrated, gm_thresholds
    from tst.metrics.registry import METRICS

    out = {}
    pg = METRICS["gm_pg"].derived_from
    if all(k in samples for k in pg):
        out["gm_pg"] = gm_array(*(samples[k] for k in pg), t=gm_thresholds(gm_t or DEFAULT_T))
    cal = METRICS["gm"].derived_from
    if calibration and list(calibration["keys"]) == list(cal) and all(k in samples for k in cal):
        t = calibration["t"][0]
        out["gm"] = np.array([gm_calibrated(j, t) for j in samples[cal[0]]])
    return out


def bootstrap_samples(
    results: Mapping, n: int, options: Mapping | None = None, gm_t=None, calibration=None
) -> tuple[dict, dict]:
    """Every metric of `results` (key -> MetricResult, all on the same n sentences) on the same resamples,
    plus the derived GMs: ({key: array of n_resamples values}, {key: why not resampled})."""
    opt = resolve(options)
    counts = resample_counts(n, opt["n_resamples"], opt["seed"])
    samples, skipped = {}, {}
    for key, r in results.items():
        try:
            samples[key] = resampled(r, counts)
        except NotResamplable as e:
            skipped[key] = str(e)
    samples.update(derived_resampled(samples, gm_t, calibration))
    return samples, skipped


def percentile_interval(samples, level: float = LEVEL) -> list[float] | None:
    """[lo, hi]: the (1-level)/2 and (1+level)/2 percentiles of the resampled values (NaN values, resamples
    where the metric is undefined, left out); None when every one is NaN."""
    s = np.asarray(samples, dtype=np.float64)
    s = s[~np.isnan(s)]
    if not len(s):
        return None
    q = 100.0 * (1.0 - level) / 2.0
    lo, hi = np.percentile(s, [q, 100.0 - q])
    return [float(lo), float(hi)]


def confidence_intervals(samples: Mapping[str, np.ndarray], level: float = LEVEL) -> dict:
    """key -> [lo, hi] (percentile_interval) for every resampled metric."""
    return {k: percentile_interval(v, level) for k, v in samples.items()}


def paired_p_value(observed_a: float, observed_b: float, samples_a, samples_b) -> float:
    """Two-sided paired-bootstrap p-value that A and B differ (Koehn 2004; see the module docstring):
    min(1, 2 x share of resamples where score_b(A) - score_b(B) has not the sign of the observed
    difference); 1 when the observed difference is 0. samples_a / samples_b: the metric of A and B on the
    SAME resamples."""
    d = float(observed_a) - float(observed_b)
    if d == 0.0:
        return 1.0
    diff = np.asarray(samples_a, dtype=np.float64) - np.asarray(samples_b, dtype=np.float64)
    diff = diff[~np.isnan(diff)]
    if not len(diff):
        return 1.0
    against = np.sum(np.sign(d) * diff <= 0.0)
    return float(min(1.0, 2.0 * against / len(diff)))


def clusters(
    scores: Mapping[str, float], samples: Mapping[str, np.ndarray], higher_is_better: bool, alpha=ALPHA
) -> dict[str, int]:
    """system -> cluster rank (1 = best) on one metric: systems sorted best first (ties by name), a new
    cluster opened where a system differs from the current cluster's top system at p < alpha
    (paired_p_value). `samples[system]`: the metric on the shared resamples."""
    order = sorted(scores, key=lambda s: (-scores[s] if higher_is_better else scores[s], s))
    rank, out, top = 0, {}, None
    for s in order:
        if top is None or paired_p_value(scores[top], scores[s], samples[top], samples[s]) < alpha:
            rank, top = rank + 1, s
        out[s] = rank
    return out


def significance(
    observed: Mapping[str, Mapping[str, float]], samples: Mapping[str, Mapping], alpha=ALPHA
) -> dict:
    """Per metric, per system: {"score", "ci95", "cluster"}. observed: system -> {metric key: score};
    samples: system -> {metric key: its values on the shared resamples} (bootstrap_samples of each system,
    all on the same test sentences with the same options). A metric is compared over the systems that have
    both its score and its samples; its direction is the registry's (tst.metrics.registry.METRICS)."""
    from tst.metrics.registry import METRICS

    keys = sorted({k for s in samples.values() for k in s}, key=lambda k: (k not in METRICS, k))
    out = {}
    for key in keys:
        have = [s for s in observed if observed[s].get(key) is not None and key in samples.get(s, {})]
        if not have:
            continue
        scores = {s: float(observed[s][key]) for s in have}
        per = {s: samples[s][key] for s in have}
        better = METRICS[key].higher_is_better if key in METRICS else True
        ranks = clusters(scores, per, better, alpha)
        out[key] = {
            s: {"score": scores[s], "ci95": percentile_interval(per[s]), "cluster": ranks[s]} for s in have
        }
    return out


# Per-sentence sufficient statistics in a score TSV (tst.scoring.write.write_score_tsv(..., resample_stats=True)): one
# `key:stat` column per statistic. PP: nll_sum, n_tokens, empty (0/1), and max_nll when the empty-output rule
# applies (worst_for_empty; absent with --pp-count-eos). Corpus BLEU: sacreBLEU's sys_len, ref_len, correct_1..N,
# total_1..N, its settings those of tst.metrics.bleu.corpus_bleu (the one corpus variant scored).
STAT_SEP = ":"


def _bleu_stat_names(order: int) -> list[str]:
    """sacreBLEU's per-sentence BLEU statistics, in its order."""
    n = range(1, order + 1)
    return ["sys_len", "ref_len", *(f"correct_{j}" for j in n), *(f"total_{j}" for j in n)]


def stat_columns(results: Mapping) -> dict[str, list]:
    """{"key:stat": per-sentence values} of every result that keeps resample statistics."""
    out = {}
    for key, r in results.items():
        st = r.resample or {}
        if st.get("kind") == "pp":
            names = ["nll_sum", "n_tokens", "empty"] + (["max_nll"] if st["worst_for_empty"] else [])
            for name in names:
                out[f"{key}{STAT_SEP}{name}"] = [int(x) if name == "empty" else x for x in st[name]]
        elif st.get("kind") == "bleu":
            for j, name in enumerate(_bleu_stat_names(st["settings"]["max_ngram_order"])):
                out[f"{key}{STAT_SEP}{name}"] = [int(row[j]) for row in st["stats"]]
        elif st.get("kind") == "ratio":
            for name in ("num", "den"):
                out[f"{key}{STAT_SEP}{name}"] = [float(x) for x in st[name]]
    return out


def results_from_tsv(metrics: Mapping, path) -> dict:
    """What bootstrap_samples needs for one system from its score files: metrics = the score JSON's
    "metrics" (score, variant, higher_is_better), path = its per-sentence TSV (per-sentence values and, when
    written with resample_stats, the `key:stat` columns). key -> MetricResult; derived metrics (GM) are
    left out (bootstrap_samples recomputes them from their factors)."""
    from tst.io import InputError, read_lines
    from tst.metrics.base import MetricResult
    from tst.metrics.bleu import corpus_bleu_settings

    lines = read_lines(path)
    if not lines:
        raise InputError(f"{path}: empty; expected a per-sentence score TSV (tst score --tsv)")
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:]]
    for i, r in enumerate(rows, 2):
        if len(r) != len(header):
            raise InputError(f"{path}, line {i}: {len(r)} columns, the header has {len(header)}; rewrite it")

    def column(name, cast=float):
        j = header.index(name)
        return [cast(r[j]) if r[j] != "" else None for r in rows]

    out = {}
    for key, m in metrics.items():
        r = MetricResult(key, m.get("variant", ""), m.get("score"), [], m.get("higher_is_better", True))
        stats = {c.split(STAT_SEP, 1)[1] for c in header if c.startswith(f"{key}{STAT_SEP}")}
        if {"nll_sum", "n_tokens", "empty"} <= stats:
            worst = "max_nll" in stats
            r.resample = {
                "kind": "pp",
                "nll_sum": column(f"{key}:nll_sum"),
                "n_tokens": column(f"{key}:n_tokens", int),
                "empty": [bool(x) for x in column(f"{key}:empty", int)],
                "max_nll": column(f"{key}:max_nll") if worst else None,
                "worst_for_empty": worst,
            }
        elif {"sys_len", "ref_len"} <= stats:
            settings = corpus_bleu_settings()
            names = _bleu_stat_names(settings["max_ngram_order"])
            cols = [column(f"{key}:{name}", int) for name in names]
            r.resample = {"kind": "bleu", "stats": [list(row) for row in zip(*cols)], "settings": settings}
        elif {"num", "den"} <= stats:
            r.resample = {"kind": "ratio", "num": column(f"{key}:num"), "den": column(f"{key}:den")}
        if key in header:
            r.per_sentence = column(key)
        if r.resample or r.per_sentence:
            out[key] = r
    return out
