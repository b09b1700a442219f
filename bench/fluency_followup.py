"""Two follow-ups to bench/fluency_candidates.py (issue 22 item 7; not a test).

python bench/fluency_followup.py --results RESULTS_DIR [--joined /tmp/fluency_final/joined.tsv]

1. Stacking without human ratings: a logistic regression on the dev split's real-vs-corrupted task (real dev
   sentences vs their negatives as rule train_acceptability makes them, corruption seed + 1) over features
   [logit P(real) of evaluators/acceptability.pt, LM scores of evaluators/lm_joint.pt]; the fitted score is then
   correlated with Li et al.'s Yelp grammaticality ratings (rows of fluency_candidates.py's joined.tsv).
2. Held-out ratings: Li et al.'s Amazon outputs and ratings scored with the same (Yelp-trained) evaluators.

RESULTS_DIR is a Yelp run's results/yelp (data/, evaluators/acceptability.pt, evaluators/lm_joint.pt).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from fluency_candidates import DATA, li_outputs, lm_candidates, unigram_logprobs
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression

from tst.evaluators.acceptability import corpus_pool, load_acceptability, negatives
from tst.evaluators.language_model import load_lm
from tst.human.correlation import join_metrics
from tst.human.ratings import match_ratings, parse_ratings_csv, read_system_outputs
from tst.io import read_sentences

LM_FEATURES = ["slor_no_eos", "word_lp_min1", "mean_lp_no_eos", "pp_no_eos"]


def features(sentences, lm, acc, ulp, eos) -> pd.DataFrame:
    v = lm_candidates(sentences, lm, ulp, eos)
    p = np.clip(acc.p_real(sentences), 1e-6, 1 - 1e-6)
    return pd.DataFrame({"logit": np.log(p / (1 - p)), **{k: v[k] for k in LM_FEATURES}})


def levels(score, joined: pd.DataFrame) -> tuple[float, float]:
    """(system-level, sentence-level) Spearman with grammaticality, as tst.human.correlation computes them."""
    ok = ~pd.isna(score)
    sent = spearmanr(score[ok], joined.grammaticality[ok]).correlation
    means = pd.DataFrame({"s": score, "g": joined.grammaticality, "sys": joined.system}).groupby("sys").mean()
    return spearmanr(means.s, means.g).correlation, sent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", required=True, type=Path)
    ap.add_argument("--joined", default=Path("/tmp/fluency_final/joined.tsv"), type=Path)
    ap.add_argument("--data-dir", default=DATA, type=Path)
    args = ap.parse_args()
    torch.set_num_threads(1)
    r, cpu = args.results, torch.device("cpu")
    train = read_sentences(r / "data/train.0.txt") + read_sentences(r / "data/train.1.txt")
    dev = read_sentences(r / "data/dev.0.txt") + read_sentences(r / "data/dev.1.txt")
    lm = load_lm(r / "evaluators/lm_joint.pt", cpu)
    acc = load_acceptability(r / "evaluators/acceptability.pt", cpu)
    ulp, eos = unigram_logprobs(train, lm.vocab)

    # 1. stacking on the synthetic dev task
    corruption = {**acc.corruption, "seed": int(acc.corruption["seed"]) + 1}
    bad, counts = negatives(dev, corruption, corpus_pool(train), lm)
    fr, fb = features(dev, lm, acc, ulp, eos), features(bad, lm, acc, ulp, eos)
    outs = {s: features(o, lm, acc, ulp, eos) for s, o in li_outputs(args.data_dir).items()}
    joined = pd.read_csv(args.joined, sep="\t")
    n0 = len(read_sentences(r / "data/test.0.txt"))
    row = [(s, n0 * st + ln) for s, st, ln in zip(joined.system, joined.source_style, joined.line)]
    print(f"dev task: {len(fr)} real, {len(fb)} negatives ({counts['n_lm_continued']} LM-continued)")
    print("| features | weights | dev task acc. | system ρ | sentence ρ |\n|---|---|---:|---:|---:|")
    for feats in (
        ["logit", "slor_no_eos"],
        ["logit", "word_lp_min1"],
        ["logit", "slor_no_eos", "word_lp_min1"],
    ):
        x = pd.concat([fr, fb])[feats].fillna(-10).to_numpy()
        y = np.r_[np.ones(len(fr)), np.zeros(len(fb))]
        model = LogisticRegression(C=1.0).fit(x, y)
        score = np.array([outs[s][feats].fillna(-10).to_numpy()[i] @ model.coef_[0] for s, i in row])
        sys_r, sent_r = levels(score, joined)
        w = ", ".join(f"{v:.3f}" for v in model.coef_[0])
        print(f"| {' + '.join(feats)} | {w} | {model.score(x, y):.3f} | {sys_r:+.3f} | {sent_r:+.3f} |")

    # 2. Amazon ratings, Yelp evaluators
    a = args.data_dir / "amazon/li"
    by_system = read_system_outputs(a / "outputs")
    table, _ = match_ratings(parse_ratings_csv(a / "human_ratings/ratings-amazon.csv"), by_system)
    metrics = {}
    for s, by in by_system.items():
        sents = [o.lower().split() for st in (0, 1) for _, o in by[st]]
        f = features(sents, lm, acc, ulp, eos)
        f.insert(0, "source", [src for st in (0, 1) for src, _ in by[st]])
        metrics[s] = f
    aj = join_metrics(table, metrics, n_style0=len(by_system["human"][0]))
    print(
        f"\nAmazon ({len(aj)} rated rewrites), Yelp evaluators:\n| candidate | system ρ | sentence ρ |\n|---|---:|---:|"
    )
    for name, score in (
        ("acceptability (logit)", aj.logit),
        ("pp_no_eos (negated)", -aj.pp_no_eos),
        ("slor_no_eos", aj.slor_no_eos),
        ("word_lp_min1", aj.word_lp_min1),
    ):
        sys_r, sent_r = levels(score, aj)
        print(f"| {name} | {sys_r:+.3f} | {sent_r:+.3f} |")


if __name__ == "__main__":
    main()
