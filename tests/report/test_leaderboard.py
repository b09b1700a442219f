"""The leaderboard (tst.report.leaderboard) on synthetic score files: JSON + per-sentence TSV (with the PP and
BLEU `key:stat` columns) of published systems, the human references, the untransferred source, a sanity
baseline and two seeds of a model of ours. Every interval is checked against the metric computed directly on
the resampled sentences (numpy's default_rng(seed).choice, as sacreBLEU draws them), Acc's also against the
binomial closed form; clusters against what is known by construction (an identical twin; a system right on
every sentence another gets right, and on ten more)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from test_build import score_files  # noqa: F401 (fixture)

from tst.metrics.base import MetricResult
from tst.metrics.bleu import corpus_bleu
from tst.metrics.gm import DEFAULT_T, gm
from tst.metrics.perplexity import perplexity
from tst.report import build
from tst.scoring.write import write_score_tsv

N = 200  # test sentences: 100 of style 0, then 100 of style 1
STYLES = [0] * 100 + [1] * 100
B, SEED = 200, 7  # the resampling options given to build_tables
CAL = {"t": [0.2], "keys": ["joint"], "from": ["random_target"], "rule": "r"}
# the default GM by its definition, 100 [J - t_J]_+ / (1 - t_J), with t_J = 0.2


def gm_by_hand(j):
    return 100 * np.maximum(np.asarray(j) - 0.2, 0.0) / 0.8


FACTORS = ("style", "content", "acceptability")
MEANS = ("acc", "sim", *FACTORS, "joint")  # metrics that are the mean of their per-sentence values
WORDS = ["the", "food", "was", "great", "service", "slow", "we", "love", "pizza", "staff", "rude", "back"]


class WordLengthLM:
    """NLL of a word = 0.5 + 0.3 x its length + 0.1 x its position; of the final <eos> 2.0."""

    def token_nll(self, sentences):
        return [np.array([0.5 + 0.3 * len(w) + 0.1 * t for t, w in enumerate(s)] + [2.0]) for s in sentences]


def sentences(seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=rng.integers(2, 9))) for _ in range(N)]


REFS = [[s] for s in sentences(99)]


def system(seed: int, n_right: int, outputs=None) -> dict:
    """Per-sentence values of one system: Acc right on the first n_right sentences, a style gain there only;
    content, Sim and acceptability drawn from `seed`; J_i = (s_i c_i f_i)^(1/3); its outputs (`seed`'s
    sentences unless given)."""
    rng = np.random.default_rng(seed)
    acc = np.array([1.0] * n_right + [0.0] * (N - n_right))
    style = acc * rng.uniform(0.6, 1.0, N)
    content = rng.uniform(0.3, 1.0, N)
    accept = rng.uniform(0.5, 1.0, N)
    return {
        "acc": acc.tolist(),
        "sim": rng.uniform(0.5, 1.0, N).tolist(),
        "style": style.tolist(),
        "content": content.tolist(),
        "acceptability": accept.tolist(),
        "joint": ((style * content * accept) ** (1 / 3)).tolist(),
        "outputs": outputs if outputs is not None else sentences(seed),
    }


def results(sys_: dict) -> dict:
    mean = {k: MetricResult(k, f"mean {k}", float(np.mean(sys_[k])), sys_[k]) for k in MEANS}
    return {
        **mean,
        "pp_joint": perplexity(sys_["outputs"], WordLengthLM()),
        "bleu_ref_corpus": corpus_bleu(sys_["outputs"], REFS),
    }


def write(root, name, split, checkpoint, res: dict, variant=None, seed=None, epoch=None, tsv=True):
    rec = {
        "dataset": "toy",
        "system": name,
        "variant": variant,
        "seed": seed,
        "checkpoint": checkpoint,
        "epoch": epoch,
        "split": split,
        "n_sentences": N,
        "metrics": {k: r.to_json() for k, r in res.items()},
    }
    path = root / name / f"{split}.{checkpoint}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec))
    if tsv:
        write_score_tsv(path.with_suffix(".tsv"), res, STYLES, resample_stats=True)
    return path


GOOD = system(1, 190)
SYSTEMS = {  # name -> per-sentence values (external systems)
    "good": GOOD,
    "good_twin": GOOD,  # the same outputs and values under another name
    "mid": system(2, 120),
    "human": system(3, 200, outputs=[r[0] for r in REFS]),  # right wherever `good` is, and on 10 more
    "source": system(4, 4),
    "random_target": system(5, 100),
}
# ours: dev Acc per checkpoint; target 0.80 -> seed 1 at ep2.0 (0.79), seed 2 at ep1.0 (0.81)
DEV = {1: {"ep1.0": 0.70, "ep2.0": 0.79}, 2: {"ep1.0": 0.81, "ep2.0": 0.90}}


@pytest.fixture()
def board(tmp_path):
    root, paths = tmp_path / "scores", []
    for name, sys_ in SYSTEMS.items():
        paths.append(write(root, name, "test", "final", results(sys_)))
    for seed, dev in DEV.items():
        for j, (ck, a) in enumerate(dev.items()):
            ep = float(ck[2:])
            acc = MetricResult("acc", "mean acc", a, [])
            paths.append(write(root, f"M0.seed{seed}", "dev", ck, {"acc": acc}, "M0", seed, ep, tsv=False))
            res = results(system(10 * seed + j, 150 + 10 * j))
            paths.append(write(root, f"M0.seed{seed}", "test", ck, res, "M0", seed, ep))
    out = tmp_path / "tables"
    build.build_tables(
        paths,
        out,
        {"target_acc": 0.80, "tolerance": 0.02},
        ["M0"],
        gm_t=DEFAULT_T,
        calibration=CAL,
        checks={},
        bootstrap={"n_resamples": B, "seed": SEED},
    )
    return pd.read_csv(out / "leaderboard.csv").set_index("system"), out


def direct(sys_: dict) -> dict:
    """Each headline metric computed directly on each resample of the sentences (no tst.bootstrap)."""
    idx = np.random.default_rng(SEED).choice(N, size=(B, N), replace=True)
    lm, out = WordLengthLM(), {}
    for k in MEANS:
        out[k] = np.asarray(sys_[k])[idx].mean(axis=1)
    out["pp_joint"] = np.array([perplexity([sys_["outputs"][i] for i in row], lm).score for row in idx])
    out["bleu_ref_corpus"] = np.array(
        [corpus_bleu([sys_["outputs"][i] for i in row], [REFS[i] for i in row]).score for row in idx]
    )
    out["gm_pg"] = np.array(
        [gm(a, s, p, DEFAULT_T) for a, s, p in zip(out["acc"], out["sim"], out["pp_joint"])]
    )
    out["gm"] = gm_by_hand(out["joint"])
    return out


# the leaderboard's columns: the default GM and its factors, ref-BLEU, then Pang & Gimpel's Acc, Sim, PP, GM
KEYS = ["gm", *FACTORS, "bleu_ref_corpus", "acc", "sim", "pp_joint", "gm_pg"]


def test_intervals_are_the_metrics_on_the_resampled_sentences(board):
    t, _ = board
    for name in ("good", "mid"):
        d = direct(SYSTEMS[name])
        for k in KEYS:
            lo, hi = np.percentile(d[k], [2.5, 97.5])
            assert (t.loc[name, f"{k}_lo"], t.loc[name, f"{k}_hi"]) == pytest.approx((lo, hi), rel=1e-6), (
                name,
                k,
            )
    # Acc 0.95 on 200 sentences: binomial interval 0.95 +- 1.96 sqrt(0.95 x 0.05 / 200) = 0.95 +- 0.0302; the
    # percentile interval from 200 resamples lies within 0.01 of it (Acc moves in steps of 0.005)
    half = 1.96 * math.sqrt(0.95 * 0.05 / N)
    assert t.loc["good", "acc"] == 0.95
    assert t.loc["good", "acc_lo"] == pytest.approx(0.95 - half, abs=0.01)
    assert t.loc["good", "acc_hi"] == pytest.approx(0.95 + half, abs=0.01)


def test_clusters(board):
    t, _ = board
    cl = [c for c in t.columns if c.endswith("_cluster")]
    # an identical twin: the same score, interval and cluster on every metric
    assert t.loc["good", KEYS].tolist() == t.loc["good_twin", KEYS].tolist()
    assert t.loc["good", cl].tolist() == t.loc["good_twin", cl].tolist()
    # Acc: human right on every sentence good gets right and on 10 more; a resample ties them only when it
    # draws none of those 10: (190/200)^200 = 3.5e-5 of resamples, so p < 0.05 and human ranks alone
    assert t.loc["reference", "acc_cluster"] == 1 and (t["acc_cluster"] == 1).sum() == 1
    assert t.loc["good", "acc_cluster"] == 2
    # mid (0.60), random_target (0.50), source (0.02): 40 and 90 sentences apart, each its own cluster below
    ranks = t.loc[["mid", "random_target", "source"], "acc_cluster"].tolist()
    assert ranks == sorted(ranks) and len(set(ranks)) == 3 and min(ranks) > 2
    # BLEU of the references against themselves is shown but not ranked
    assert t.loc["reference", "bleu_ref_corpus"] == pytest.approx(100.0)
    assert math.isnan(t.loc["reference", "bleu_ref_corpus_cluster"])


def test_every_kind_and_ours_per_seed_at_its_selected_checkpoint(board):
    t, out = board
    assert dict(t["kind"]) == {
        "good": "published",
        "good_twin": "published",
        "mid": "published",
        "reference": "references",
        "source": "untransferred",
        "random_target": "baseline",
        "M0.seed1": "ours",
        "M0.seed2": "ours",
    }
    assert t.loc["M0.seed1", "checkpoint"] == "ep2.0" and t.loc["M0.seed2", "checkpoint"] == "ep1.0"
    # ours: the test scores of that checkpoint (seed 1 ep2.0 = system(11, 160): Acc 0.80)
    assert t.loc["M0.seed1", "acc"] == pytest.approx(0.80) and t.loc["M0.seed2", "acc"] == pytest.approx(0.75)
    # rows sorted by the default GM, best first; GM computed here from the mean J
    gms = {n: float(gm_by_hand(np.mean(s["joint"]))) for n, s in SYSTEMS.items()}
    assert t.loc["good", "gm"] == pytest.approx(gms["good"], rel=1e-9)
    assert t.loc["reference", "gm"] == pytest.approx(gms["human"], rel=1e-9)
    assert list(t["gm"]) == sorted(t["gm"], reverse=True)
    assert t.index[0] == "reference" and set(t["rank_by"]) == {"gm"}
    md = (out / "leaderboard.md").read_text()
    # the columns: the default GM and its factors, ref-BLEU, then Pang & Gimpel's own, labelled theirs
    header = next(line for line in md.splitlines() if line.startswith("| System |"))
    assert [c.strip() for c in header.strip("|").split("|")][3:] == [
        "GM ↑",
        "Style ↑",
        "Content ↑",
        "Accept ↑",
        "ref-BLEU ↑",
        "Acc (P&G) ↑",
        "Sim (P&G) ↑",
        "PP (P&G) ↓",
        "GM-P&G ↑",
    ]
    row = next(line for line in md.splitlines() if line.startswith("| good |"))
    lo, hi = t.loc["good", ["acc_lo", "acc_hi"]]
    assert f"| 0.950 [{lo:.3f}, {hi:.3f}] (2) |" in row
    assert "random_target ◦" in md and "<table class=sortable>" in (out / "leaderboard.html").read_text()


def test_without_tsvs_scores_but_no_intervals(score_files, tmp_path):  # noqa: F811
    # test_report_build's score files are JSONs alone: the leaderboard still lists every system and says why
    build.build_tables(
        score_files, tmp_path, {"target_acc": 0.80, "tolerance": 0.02}, ["M0", "M2"], checks={}
    )
    t = pd.read_csv(tmp_path / "leaderboard.csv")
    assert len(t) == 4 + 4  # mit, multi_decoder, human, source; M0 and M2 x 2 seeds
    assert t["acc_lo"].isna().all() and t["acc_cluster"].isna().all()
    assert (
        "no per-sentence TSV (test.final.tsv) beside test.final.json"
        in (tmp_path / "leaderboard.md").read_text()
    )


def test_a_tsv_from_another_run_is_an_error_naming_both_files(tmp_path):
    from tst.io import InputError
    from tst.report.leaderboard import system_samples

    path = write(tmp_path, "good", "test", "final", results(GOOD))
    lines = path.with_suffix(".tsv").read_text().splitlines()
    path.with_suffix(".tsv").write_text("\n".join(lines[:-1]) + "\n")  # 199 sentences
    with pytest.raises(
        InputError, match=r"test.final.tsv: 199 sentences, but .*test.final.json says n_sentences 200"
    ):
        system_samples(path, {"n_resamples": 10})


def test_human_columns_and_their_agreement_with_the_metrics(tmp_path):
    """With human ratings: per rated system the mean of each aspect and overall (the mean of the three per
    rewrite), worked out here; unrated systems blank; a system rated but not on the leaderboard ignored; and
    each metric's system-level Spearman with the overall rating."""
    paths = [write(tmp_path / "scores", n, "test", "final", results(s)) for n, s in SYSTEMS.items()]
    rated = tmp_path / "ratings_with_metrics.tsv"
    rows = [
        ("good", 4, 4, 4),
        ("good", 2, 4, 3),  # good: grammaticality 3, sentiment 4, topic 3.5; overall (4 + 3) / 2 = 3.5
        ("mid", 3, 2, 1),  # overall 2
        ("human", 5, 5, 5),
        ("human", 5, 4, 3),  # overall (5 + 4) / 2 = 4.5
        ("source", 5, 1, 5),  # overall 11 / 3
        ("elsewhere", 1, 1, 1),  # not a leaderboard system
    ]
    rated.write_text(
        "system\tgrammaticality\tsentiment\ttopic\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows)
    )
    out = tmp_path / "tables"
    build.build_tables(paths, out, checks={}, bootstrap={"n_resamples": 20, "seed": 0}, rated=rated)
    t = pd.read_csv(out / "leaderboard.csv").set_index("system")
    assert list(t.loc["good", ["human_grammaticality", "human_sentiment", "human_topic"]]) == [3, 4, 3.5]
    assert t.loc["good", "human_overall"] == 3.5 and t.loc["good", "human_n"] == 2
    assert t.loc["source", "human_overall"] == pytest.approx(11 / 3)
    assert t.loc[["good_twin", "random_target"], "human_overall"].isna().all() and "elsewhere" not in t.index
    # Acc over the four rated systems: untransferred 0.02, mid 0.60, good 0.95, human 1.0 (ranks 1-4); overall
    # 3.667, 2, 3.5, 4.5 (ranks 3, 1, 2, 4): sum d^2 = 4 + 1 + 1 + 0 = 6, rho = 1 - 6 x 6 / (4 x 15) = 0.4
    md = (out / "leaderboard.md").read_text()
    assert "Acc ↑ ρ = 0.40" in md and "over the 4 rated systems here" in md
    header = next(line for line in md.splitlines() if line.startswith("| System"))
    assert header.endswith("| Human grammaticality ↑ | Human sentiment ↑ | Human topic ↑ | Human overall ↑ |")
    good = next(line for line in md.splitlines() if line.startswith("| good |"))
    assert good.endswith("| 3.00 | 4.00 | 3.50 | 3.50 |")
