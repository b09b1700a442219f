"""Sanity baselines (tst.baselines), the validity checks (tst.validity) and the calibrated GM (tst.metrics.gm):
values worked out by hand."""

import random

import numpy as np
import pytest

from tst import baselines as bl
from tst import rule_inputs, stages
from tst.metrics.gm import calibrate, for_test_set, gm_calibrated, gm_calibrated_result
from tst.metrics.registry import GM_CONTENT, METRICS, add_derived
from tst.validity import adjacent_swaps, auc, damaged, derangement, separation, shuffled_sources


class Emb:
    def __init__(self, table):
        self.table = {k: np.asarray(v, float) for k, v in table.items()}

    def get(self, word):
        return self.table.get(word)


def test_random_target_is_seeded_per_line_and_draws_from_the_target_pool():
    pool = ["t1 a", "t2 b", "", "t3 c"]
    out = bl.random_target(["s1", "s2", "s3"], pool, seed=7, style=0)
    # the same draw, made independently: one generator per (seed, style, line) over the non-empty lines
    nonempty = ["t1 a", "t2 b", "t3 c"]
    assert out == [nonempty[random.Random(f"7:0:{i}").randrange(3)] for i in range(3)]
    # a line's output does not depend on the lines before it
    assert bl.random_target(["s1", "s2", "s3", "s4"], pool, 7, 0)[:3] == out
    assert bl.random_target(["s1"], pool, 7, 1) == [nonempty[random.Random("7:1:0").randrange(3)]]


def test_fixed_target_is_the_most_generic_long_enough_sentence():
    pool = ["the food is great !", "the food is great !", "zany quirky food is great", "ok", "ok", "ok"]
    # counts: the 2, food 3, is 3, great 3, ! 2, zany 1, quirky 1, ok 3; total 18. Of the sentences with >= 5
    # tokens: "the food is great !" mean log(f/18) = (2 ln 2 + 3 ln 3) / 5 - ln 18 = -1.059...
    # "zany quirky food is great": (3 ln 3) / 5 - ln 18 = -2.231...; "ok" (the most frequent) is too short
    assert bl.fixed_target(["a", "b"], pool) == ["the food is great !"] * 2
    # nothing long enough: every sentence competes, and "ok" (count 3 of 3 tokens) is the most generic
    assert bl.fixed_target(["a"], ["ok", "ok", "ok", "no way"], min_words=5) == ["ok"]
    # a tie goes to the first in sorted order
    assert bl.fixed_target(["a"], ["b a", "a b"], min_words=2) == ["a b"]


def test_shuffled_never_returns_the_source_when_another_order_exists():
    src = ["a b", "x", "a a", "the food was great", "b a"]
    out = bl.shuffled(src, seed=0, style=0)
    for s, o in zip(src, out):
        assert sorted(s.split()) == sorted(o.split())
    assert out[0] != "a b" and out[4] != "b a"  # two words: the only other order
    assert out[0] == "b a" and out[4] == "a b"
    assert out[1] == "x" and out[2] == "a a"  # no other order exists


def test_empty_and_unknown():
    assert bl.empty(["a", "b"]) == ["", ""]
    with pytest.raises(ValueError, match="unknown baseline"):
        bl.make("nope", ["a"], 0, 0)


def test_nearest_target_maximises_the_idf_weighted_cosine():
    emb = Emb({"good": [1, 0], "food": [0, 1], "bad": [-1, 0], "tasty": [0.9, 0.1]})
    idf = {"idf": {"good": 1.0, "food": 2.0, "bad": 1.0, "tasty": 1.0}, "default": 1.0}
    targets = ["bad", "good food", "tasty", "unknownword"]
    # source "food": v = (0, 1); "good food": (1*[1,0] + 2*[0,1]) / 3 -> cos = 2/sqrt(5) = 0.894; "tasty": 0.110
    # source "good": "tasty" cos = 0.9/sqrt(0.82) = 0.994 > "good food" 1/sqrt(5) = 0.447
    assert bl.nearest_target(["food", "good", "zzz"], targets, emb, idf) == ["good food", "tasty", "bad"]


def test_baselines_are_systems_of_every_dataset_and_not_honest():
    config = {
        "datasets": {
            "d": {"styles": ["negative", "positive"], "source": {"kind": "files"}, "systems": {"mit": {}}}
        }
    }
    assert stages.external_systems(config, "d") == ["mit", "source", *bl.BUILT]
    assert stages.honest_systems(config, "d") == ["mit"]
    config["baselines"] = {"run": ["empty", "shuffled"]}
    assert stages.baseline_systems(config) == ["shuffled", "empty"]
    assert stages.calibration_baselines(config) == []  # no content-free baseline: no calibrated GM
    config["baselines"] = {"run": ["fixed_target", "shuffled"]}
    assert stages.calibration_baselines(config) == ["source", "shuffled", "fixed_target"]


def test_derangement_moves_every_element():
    for n in (2, 3, 10, 101):
        for seed in range(3):
            pi = derangement(n, seed)
            assert sorted(pi) == list(range(n))
            assert all(pi[i] != i for i in range(n))
    assert derangement(1, 0) == [0]


def test_shuffled_sources_stay_within_the_style():
    src = ["a0", "b0", "c0", "a1", "b1"]
    styles = [0, 0, 0, 1, 1]
    out = shuffled_sources(src, styles, seed=3)
    assert sorted(out[:3]) == ["a0", "b0", "c0"] and out[3:] == ["b1", "a1"]
    assert all(o != s for o, s in zip(out, src))


def test_auc_by_hand():
    # true [1, 2, 3] vs shuffled [0, 0.5, 2]: wins 2 + (2 + tie 0.5) + 3 = 7.5 of 9 pairs
    assert auc([1, 2, 3], [0, 0.5, 2]) == pytest.approx(7.5 / 9)
    assert auc([1, 2, 3], [0, 0.5, 2], higher_is_better=False) == pytest.approx(1.5 / 9)
    assert auc([1, 1], [1, 1]) == 0.5
    s = separation([0.9, 0.8], [0.5, 0.6])
    assert s["mean_true"] == pytest.approx(0.85) and s["mean_shuffled"] == pytest.approx(0.55)
    assert s["gap"] == pytest.approx(0.3) and s["auc"] == 1.0
    assert separation([1.0], [3.0], higher_is_better=False)["gap"] == pytest.approx(2.0)


@pytest.mark.parametrize("n,m", [(5, 7), (300, 280), (1, 1), (50, 3)])
def test_auc_is_the_share_of_pairs_won_counted_pair_by_pair(n, m):
    """scipy's U over n x m equals the pairwise count (wins + half the ties) on values with many ties, in both
    directions."""
    rng = np.random.default_rng(n * 1000 + m)
    true, shuffled = np.round(rng.normal(0.3, 1, n), 1), np.round(rng.normal(0, 1, m), 1)
    for sign, higher in ((1, True), (-1, False)):
        pairs = [(sign * (t - s) > 0) + 0.5 * (t == s) for t in true for s in shuffled]
        assert auc(true, shuffled, higher) == pytest.approx(sum(pairs) / (n * m), rel=1e-12, abs=1e-15)


def test_word_order_damage():
    rng = random.Random(0)
    assert adjacent_swaps("a b", 3, rng) == "b a"  # three swaps of the only pair
    assert adjacent_swaps("a", 3, rng) == "a"
    out = damaged(["a b c d e", "x"], "shuffle", seed=1)
    assert sorted(out[0].split()) == list("abcde") and out[1] == "x"
    assert damaged(["a b c d e"], "swap", 1) == damaged(["a b c d e"], "swap", 1)


def test_calibrate_takes_the_highest_baseline_j():
    def j(score, bound=0.02):  # a score file's joint entry; every baseline is scored on the same sources
        return {"joint": {"score": score, "details": {"fixed_sentence_bound": bound}}}

    scores = {
        "source": j(0.0),
        "random_target": j(0.12),
        "fixed_target": j(0.2),
        "shuffled": j(0.01),
        "nearest_target": j(0.5),  # not a calibration baseline (Li et al.'s RetrieveOnly idea)
    }
    cal = calibrate(scores)
    assert cal == {"t": [0.2], "keys": ["joint"], "from": ["fixed_target"], "rule": cal["rule"]}
    # on a small test set the bound on any fixed sentence per style (sum_s k_s / N) can be the highest
    small = {name: j(value["joint"]["score"], bound=0.25) for name, value in scores.items()}
    assert calibrate(small)["t"] == [0.25] and calibrate(small)["from"] == ["fixed-sentence bound"]
    # another test set (tst score): its own bound raises t_J when higher, never lowers it
    assert for_test_set(cal, {"fixed_sentence_bound": 0.5})["t"] == [0.5]
    assert for_test_set(cal, {"fixed_sentence_bound": 0.01}) is cal and for_test_set(None, {}) is None
    assert gm_calibrated(0.9, 1.0) == 0.0  # one source per style: any output is a fixed sentence
    with pytest.raises(ValueError, match="predate it: rescore them"):
        calibrate({**scores, "shuffled": {"joint": {"score": 0.01}}})
    # every calibration baseline scores 0; a system with J 0.6: 100 (0.6 - 0.2) / 0.8 = 50
    assert all(gm_calibrated(scores[s]["joint"]["score"], 0.2) == 0.0 for s in ("source", "fixed_target"))
    assert gm_calibrated(0.6, 0.2) == pytest.approx(50.0)
    assert gm_calibrated(1.0, 0.2) == pytest.approx(100.0)
    del scores["shuffled"]["joint"]
    with pytest.raises(ValueError, match="joint of the baseline 'shuffled'"):
        calibrate(scores)
    with pytest.raises(ValueError, match="random_target or fixed_target"):
        calibrate({"source": {"joint": {"score": 0.0}}})


def test_add_derived_gm_needs_the_calibration_and_gm_pg_keeps_pang_gimpel():
    assert METRICS["gm"].derived_from == ("joint",) and GM_CONTENT == "sbert_all_minilm_l6_v2"
    metrics = {
        "acc": {"score": 0.818},
        "sim": {"score": 0.719},
        "pp_joint": {"score": 37.3},
        "joint": {"score": 0.5},
    }
    out = add_derived(metrics)
    assert "gm" not in out and "calibrated" in out.skipped["gm"]
    # Pang & Gimpel Table 2, M0 row: Acc 0.818, Sim 0.719, PP 37.3 -> GM 10.0
    assert out["gm_pg"]["score"] == pytest.approx(10.0, abs=0.05)
    cal = {"t": [0.25], "keys": ["joint"], "from": ["fixed_target"], "rule": "r"}
    out = add_derived(metrics, calibration=cal)
    assert out["gm"]["score"] == pytest.approx(100 * 0.25 / 0.75)
    assert out["gm"]["score"] == gm_calibrated_result(0.5, cal).score
    assert "t_J = 0.25" in out["gm"]["variant"]
    # a threshold calibrated for another input is not applied to this one
    out = add_derived(metrics, calibration={**cal, "keys": ["acc"]})
    assert "gm" not in out and "calibrated for" in out.skipped["gm"]


def test_the_files_the_baseline_and_validity_rules_read():
    assert rule_inputs.baseline_files("d", "shuffled", 1) == {"sources": "results/d/data/test.1.raw.txt"}
    assert rule_inputs.baseline_files("d", "nearest_target", 1) == {
        "sources": "results/d/data/test.1.raw.txt",
        "target_train": "results/d/data/train.0.raw.txt",  # the other style's
        "embeddings": "results/d/evaluators/glove.kv",
        "idf": "results/d/evaluators/idf.json",
    }
    config = {
        "datasets": {
            "d": {"source": {"kind": "files"}, "systems": {"mit": {}}, "references": {"files": ["r"]}}
        },
        "run": ["d"],
        "transfer": {"run_variants": ["M0"], "seeds": [2], "epochs": 2},
        "baselines": {"run": ["random_target", "shuffled"]},
    }
    assert stages.validity_systems(config, "d") == ["mit", "reference", "M0.seed2"]
    files = rule_inputs.validity_files(config, "d")
    assert files["outputs"][:2] == [
        "results/d/systems/mit/test.final.0.txt",
        "results/d/systems/mit/test.final.1.txt",
    ]
    assert files["outputs"][4:] == [f"results/d/models/M0/seed2/transfers/test.ep2.0.{s}.txt" for s in (0, 1)]
    assert files["sources"][4:] == ["results/d/data/test.0.raw.txt", "results/d/data/test.1.raw.txt"]
    assert files["references"] == ["results/d/data/references.0.tsv", "results/d/data/references.1.tsv"]
    assert "results/d/evaluators/lm_joint.pt" in files["evaluators"] and "bpe" not in files
    # the default GM's J of each damaged copy needs the MiniLM style classifier and the acceptability classifier
    assert {"results/d/evaluators/style_minilm.pt", "results/d/evaluators/acceptability.pt"} <= set(
        files["evaluators"]
    )
    # the test sources' sentence embeddings, preloaded (sbert is on by default); none when it is off
    assert files["sbert_sources"] == [
        "results/d/evaluators/sbert_sources.test.npy",
        "results/d/evaluators/sbert_sources.test.txt",
    ]
    assert rule_inputs.sbert_source_files({**config, "score": {"sbert": False}}, "d", ["test"]) == []
    assert rule_inputs.sbert_source_files(config, "d", ["dev", "test", "dev"]) == [
        f"results/d/evaluators/sbert_sources.{sp}.{ext}" for sp in ("dev", "test") for ext in ("npy", "txt")
    ]
    report = rule_inputs.validity_report_files(config, "d")
    assert report["calibration_scores"] == [
        f"results/d/scores/{s}/test.final.json" for s in ("source", "shuffled", "random_target")
    ]
    assert report["calibration"] == "results/d/validity/gm_thresholds.json" and report["rated"] is None
    # the word-order table's rows as they are: the validity systems' own score files, at the outputs' checkpoint
    assert report["originals"] == [
        "results/d/scores/mit/test.final.json",
        "results/d/scores/reference/test.final.json",
        "results/d/scores/M0.seed2/test.ep2.0.json",
    ]
    assert rule_inputs.validity_report_files(config, "d", ["checks", "rated"]) == {
        "checks": "results/d/validity/checks.json"
    }


def test_tail_baselines_join_the_source_to_the_most_generic_target_sentence():
    pool = ["and the food is great !", "and the food is great !", "zany quirky food is great", "ok"]
    # fixed_target's sentence (test_fixed_target_is_the_most_generic_long_enough_sentence): "and the food is great !"
    src = ["the fries were cold .", "rude staff", ""]
    assert bl.tail_clause(src, pool) == [
        "the fries were cold , but the food is great !",  # final mark dropped, leading "and" dropped
        "rude staff , but the food is great !",
        "the food is great !",  # an empty source: the tail alone
    ]
    assert bl.tail_sentence(src, pool) == [
        "the fries were cold . and the food is great !",
        "rude staff . and the food is great !",  # a full stop added where the source has no sentence mark
        "and the food is great !",
    ]
    assert bl.make("tail_clause", src[:1], 0, 0, target_train=pool) == bl.tail_clause(src[:1], pool)
    assert bl.make("tail_sentence", src[:1], 1, 0, target_train=pool) == bl.tail_sentence(src[:1], pool)
