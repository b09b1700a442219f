"""tst.bootstrap: paired-bootstrap intervals, p-values and clusters, each checked against a value worked out
independently (a closed form, or the metric computed directly on the resampled sentences)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu

from tst.bootstrap import (
    bootstrap_samples,
    clusters,
    paired_p_value,
    percentile_interval,
    resample_counts,
    resample_indices,
    resampled,
    resolve,
)
from tst.metrics.base import MetricResult
from tst.metrics.bleu import corpus_bleu, ref_bleu_where_given
from tst.metrics.gm import gm
from tst.metrics.perplexity import perplexity, perplexity_by_style


def _acc(per) -> MetricResult:
    return MetricResult("acc", "share right", float(np.mean(per)), list(per))


def test_acc_interval_is_the_binomial_interval():
    # n = 1000, p = 0.7: normal-approximation binomial interval p +- 1.96 sqrt(p(1-p)/n) = 0.7 +- 0.02840.
    # The bootstrap's 2.5th percentile estimated from B = 1000 resamples has Monte-Carlo standard error
    # sqrt(q(1-q)/B) / f(x_q) = 0.00494 / (phi(1.96) / 0.01449) = 0.0012 (q = 0.025, f the normal density at
    # the quantile); 0.005 is about 4 such errors (and the binomial's 0.001 steps).
    n, p = 1000, 0.7
    per = [1.0] * 700 + [0.0] * 300
    samples, skipped = bootstrap_samples({"acc": _acc(per)}, n)
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    lo, hi = percentile_interval(samples["acc"])
    assert not skipped
    assert lo == pytest.approx(p - half, abs=0.005)
    assert hi == pytest.approx(p + half, abs=0.005)


def test_seeded_and_paired():
    a, b = resample_counts(50, 200, seed=3), resample_counts(50, 200, seed=3)
    assert np.array_equal(a, b)  # the same resamples for every system of a comparison
    assert not np.array_equal(a, resample_counts(50, 200, seed=4))
    assert (a.sum(axis=1) == 50).all()
    idx = resample_indices(50, 200, seed=3)
    assert all(np.array_equal(np.bincount(idx[k], minlength=50), a[k]) for k in range(200))
    per = [float(i % 3 == 0) for i in range(50)]
    s1, _ = bootstrap_samples({"acc": _acc(per)}, 50, {"n_resamples": 200, "seed": 3})
    s2, _ = bootstrap_samples({"acc": _acc(per)}, 50, {"n_resamples": 200, "seed": 3})
    assert np.array_equal(s1["acc"], s2["acc"])


def test_identical_systems_never_separated():
    rng = np.random.default_rng(1)
    per = (rng.random(500) < 0.6).astype(float).tolist()
    s, _ = bootstrap_samples({"acc": _acc(per)}, 500)
    assert paired_p_value(np.mean(per), np.mean(per), s["acc"], s["acc"]) == 1.0
    ranks = clusters({"a": np.mean(per), "b": np.mean(per)}, {"a": s["acc"], "b": s["acc"]}, True)
    assert ranks == {"a": 1, "b": 1}


def test_clearly_better_separated_close_ones_share_a_cluster():
    n = 500
    good = [1.0] * 450 + [0.0] * 50  # Acc 0.9
    # 0.896: differs from `good` on 20 sentences, 9 it gets right and `good` wrong, 11 the other way round
    close = list(good)
    for i in range(11):
        close[i] = 0.0
    for i in range(450, 459):
        close[i] = 1.0
    bad = [1.0] * 250 + [0.0] * 250  # Acc 0.5
    scores, samples = {}, {}
    for name, per in (("good", good), ("close", close), ("bad", bad)):
        s, _ = bootstrap_samples({"acc": _acc(per)}, n)
        scores[name], samples[name] = float(np.mean(per)), s["acc"]
    # 0.9 vs 0.5 on 500 sentences: the difference's standard error is ~0.03, 13 of them: no resample reverses it
    assert paired_p_value(scores["good"], scores["bad"], samples["good"], samples["bad"]) == 0.0
    # 2 net sentences of 500 (a sign test on 20 discordant pairs, 11 vs 9, gives p = 0.82): not separated
    assert paired_p_value(scores["good"], scores["close"], samples["good"], samples["close"]) > 0.5
    assert clusters(scores, samples, higher_is_better=True) == {"good": 1, "close": 1, "bad": 2}
    # lower is better: the order and the ranks flip
    assert clusters(scores, samples, higher_is_better=False) == {"bad": 1, "close": 2, "good": 2}


def test_none_values_left_out_as_the_metric_does():
    per = [1.0, None, 0.0, 0.5]
    r = MetricResult("sim", "mean", 0.5, per)
    counts = np.array([[2, 1, 0, 1], [0, 3, 0, 1], [0, 4, 0, 0]])
    out = resampled(r, counts)
    assert out[0] == pytest.approx((2 * 1.0 + 0.5) / 3)
    assert out[1] == pytest.approx(0.5)
    assert math.isnan(out[2])  # nothing defined drawn: undefined, left out of the interval
    assert percentile_interval([0.2, float("nan"), 0.4]) == [pytest.approx(0.205), pytest.approx(0.395)]


def test_not_a_mean_is_not_resampled():
    r = MetricResult("distinct", "share distinct", 0.8, [])
    samples, skipped = bootstrap_samples({"distinct": r, "acc": _acc([1.0, 0.0])}, 2)
    assert "distinct" in skipped and "distinct" not in samples and "acc" in samples


HYPS = [
    "the food was great",
    "service is slow and rude",
    "",
    "i love this place a lot",
    "the staff was friendly",
    "worst pizza in town",
    "great great great",
    "we will come back",
]
REFS = [
    ["the food was bad"],
    ["service is quick and polite", "the service is fast"],
    ["nothing to say"],
    ["i hate this place a lot"],
    ["the staff was rude"],
    ["best pizza in town"],
    ["bad bad bad"],
    ["we will never come back"],
]


def _direct_bleu(idx, refs):
    hyps = [HYPS[i] for i in idx if refs[i]]
    rs = [refs[i] for i in idx if refs[i]]
    k = max(len(r) for r in rs)
    streams = [[r[j] if j < len(r) else None for r in rs] for j in range(k)]
    return sacrebleu.corpus_bleu(hyps, streams, tokenize="none", force=True, smooth_method="none").score


def test_corpus_bleu_on_a_resample_is_sacrebleu_on_the_resampled_sentences():
    counts = resample_counts(len(HYPS), 30, seed=7)
    idx = resample_indices(len(HYPS), 30, seed=7)
    boot = resampled(corpus_bleu(HYPS, REFS), counts)
    for k in range(30):
        assert boot[k] == _direct_bleu(idx[k], REFS)
    # ref-BLEU over the sentences that have references: a drawn sentence without one adds nothing
    partial = [r if i % 3 else None for i, r in enumerate(REFS)]
    boot = resampled(ref_bleu_where_given(HYPS, partial), counts)
    for k in range(30):
        if any(partial[i] for i in idx[k]):
            assert boot[k] == _direct_bleu(idx[k], partial)


class WordLengthLM:
    """NLL of a word = 0.5 + 0.3 x its length + 0.1 x its position; of the final <eos> 2.0."""

    def token_nll(self, sentences):
        return [np.array([0.5 + 0.3 * len(w) + 0.1 * t for t, w in enumerate(s)] + [2.0]) for s in sentences]


@pytest.mark.parametrize("count_eos", [False, True])
def test_pp_on_a_resample_is_pp_of_the_resampled_sentences(count_eos):
    # the empty outputs exercise worst_for_empty, whose L and m depend on which sentences are drawn
    counts = resample_counts(len(HYPS), 40, seed=11)
    idx = resample_indices(len(HYPS), 40, seed=11)
    lm = WordLengthLM()
    boot = resampled(perplexity(HYPS, lm, count_eos=count_eos), counts)
    styles = [i % 2 for i in range(len(HYPS))]
    boot_t = resampled(perplexity_by_style(HYPS, styles, {0: lm, 1: lm}, count_eos=count_eos), counts)
    for k in range(40):
        direct = perplexity([HYPS[i] for i in idx[k]], lm, count_eos=count_eos).score
        assert boot[k] == pytest.approx(direct, rel=1e-12)
        assert boot_t[k] == pytest.approx(direct, rel=1e-12)


def test_gm_recomputed_from_the_resampled_factors():
    n = 8
    rng = np.random.default_rng(5)
    acc = (rng.random(n) < 0.8).astype(float).tolist()
    sim = rng.uniform(0.6, 0.95, n).tolist()
    results = {
        "acc": _acc(acc),
        "sim": MetricResult("sim", "mean", float(np.mean(sim)), sim),
        "pp_joint": perplexity(HYPS, WordLengthLM(), count_eos=True),
    }
    samples, _ = bootstrap_samples(results, n, {"n_resamples": 20, "seed": 2})
    idx = resample_indices(n, 20, seed=2)
    for k in range(20):
        a = np.mean([acc[i] for i in idx[k]])
        s = np.mean([sim[i] for i in idx[k]])
        p = perplexity([HYPS[i] for i in idx[k]], WordLengthLM(), count_eos=True).score
        assert samples["gm_pg"][k] == pytest.approx(gm(a, s, p), abs=1e-9)


def test_resolve():
    assert resolve(None) == {"n_resamples": 1000, "seed": 0}
    with pytest.raises(ValueError, match="unknown bootstrap options"):
        resolve({"resamples": 10})
    with pytest.raises(ValueError, match="at least 1"):
        resolve({"n_resamples": 0})


def test_config_options():
    from tst.stages import bootstrap_options

    assert bootstrap_options({}) == {"n_resamples": 1000, "seed": 0}
    assert bootstrap_options({"score": {"bootstrap": {"n_resamples": 50}}}) == {"n_resamples": 50, "seed": 0}


def test_significance_per_metric_with_the_registry_direction():
    from tst.bootstrap import significance

    n = 400
    per = {
        "a": [1.0] * 360 + [0.0] * 40,  # Acc 0.9
        "b": [1.0] * 200 + [0.0] * 200,  # Acc 0.5
    }
    pp = {"a": 40.0, "b": 20.0}
    observed, samples = {}, {}
    for s, values in per.items():
        observed[s] = {"acc": float(np.mean(values)), "pp_joint": pp[s]}
        # PP the same on every resample (a's always above b's): separated; lower is better, so b ranks first
        samples[s] = {
            "acc": bootstrap_samples({"acc": _acc(values)}, n)[0]["acc"],
            "pp_joint": np.full(1000, pp[s]),
        }
    out = significance(observed, samples)
    assert {s: out["acc"][s]["cluster"] for s in "ab"} == {"a": 1, "b": 2}
    assert {s: out["pp_joint"][s]["cluster"] for s in "ab"} == {"a": 2, "b": 1}
    assert out["pp_joint"]["a"]["ci95"] == [40.0, 40.0]
    assert out["acc"]["b"]["score"] == 0.5


@pytest.mark.parametrize("count_eos", [False, True])
def test_resample_statistics_survive_the_score_tsv(tmp_path, count_eos):
    from tst.bootstrap import results_from_tsv
    from tst.scoring.write import write_score_tsv

    n = len(HYPS)
    partial = [r if i % 3 else None for i, r in enumerate(REFS)]
    results = {
        "acc": _acc([float(i % 2) for i in range(n)]),
        "pp_joint": perplexity(HYPS, WordLengthLM(), count_eos=count_eos),
        "bleu_ref_corpus": ref_bleu_where_given(HYPS, partial),
        "bleu_self_sentence": MetricResult("bleu_self_sentence", "m", 50.0, [None, 100.0, 0.0] + [None] * 5),
    }
    write_score_tsv(tmp_path / "s.tsv", results, [0] * n, resample_stats=True)
    back = results_from_tsv({k: r.to_json() for k, r in results.items()}, tmp_path / "s.tsv")
    direct, _ = bootstrap_samples(results, n, {"n_resamples": 50})
    read, _ = bootstrap_samples(back, n, {"n_resamples": 50})
    assert set(read) == set(direct) == set(results)
    for k in results:
        assert np.array_equal(read[k], direct[k], equal_nan=True), k


def test_corpus_bleu_resamples_are_sacrebleus_own(monkeypatch):
    # sacreBLEU's bootstrap (significance._bootstrap_resample, seed SACREBLEU_SEED = 12345 by default) draws
    # the same indices as ours with seed 12345, so its resampled scores are ours; it holds the statistics as
    # float32 and computes the precisions in it: equal to float32's relative precision (6e-8), not to the bit
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import _bootstrap_resample

    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    k = max(len(r) for r in REFS)
    streams = [[r[j] if j < len(r) else None for r in REFS] for j in range(k)]
    metric = BLEU(tokenize="none", force=True, lowercase=False, smooth_method="none")
    _, theirs = _bootstrap_resample(metric._extract_corpus_statistics(HYPS, streams), metric, 400)
    ours, _ = bootstrap_samples(
        {"b": corpus_bleu(HYPS, REFS)}, len(HYPS), {"n_resamples": 400, "seed": 12345}
    )
    assert ours["b"] == pytest.approx([s.score for s in theirs], rel=1e-6, abs=1e-9)


def test_a_float32_mean_is_a_mean():
    # acc_prob, acceptability, sbert: float(p.mean()) of a float32 array, 4.8e-8 from the float64 mean here
    p = np.random.default_rng(0).random(100_000).astype(np.float32)
    r = MetricResult("acc_prob", "mean P", float(p.mean()), p.tolist())
    samples, skipped = bootstrap_samples({"acc_prob": r}, len(p), {"n_resamples": 5})
    assert not skipped and len(samples["acc_prob"]) == 5


def test_a_weighted_mean_is_resampled_as_its_ratio():
    from tst.bootstrap import ratio_statistic

    # sentences with num 1, 2, 0 and den 1, 0.5, 0; resample 1 draws sentence 0 twice and 1 once: (1+1+2)/(1+1+0.5)
    # = 1.6; resample 2 draws only sentence 2, whose weight is 0: undefined
    counts = np.array([[2, 1, 0], [0, 0, 3]])
    got = ratio_statistic({"num": [1.0, 2.0, 0.0], "den": [1.0, 0.5, 0.0]}, counts)
    assert got[0] == pytest.approx(1.6) and np.isnan(got[1])
