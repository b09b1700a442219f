"""The validity tables (tst.report.validity) on score files made by hand: which baseline a metric ranks below
every honest system, content separation, word-order damage, and each GM's agreement with people."""

import json
from pathlib import Path

import pandas as pd
import pytest

from tst.metrics.registry import GM_CONTENT
from tst.report import build
from tst.report.scores import load_scores
from tst.report.validity import gm_vs_human, separation_table, validity_table, word_order_table

C = GM_CONTENT


# t_J = 0.2, random_target's J below (the highest of the baselines'): the default GM is
# 100 [J - 0.2]_+ / 0.8 = 125 [J - 0.2]_+
CAL = {"t": [0.2], "keys": ["joint"], "from": ["random_target"], "rule": "by hand"}


def write(root: Path, system: str, metrics: dict, split="test", checkpoint="final", variant=None, seed=None):
    rec = {
        "dataset": "toy",
        "system": system,
        "variant": variant,
        "seed": seed,
        "checkpoint": checkpoint,
        "epoch": float(checkpoint[2:]) if checkpoint.startswith("ep") else None,
        "split": split,
        "n_sentences": 10,
        "metrics": {
            k: {"score": v, "variant": k, "higher_is_better": k != "pp_joint"} for k, v in metrics.items()
        },
    }
    path = root / system / f"{split}.{checkpoint}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec))
    return path


@pytest.fixture()
def files(tmp_path):
    def m(acc, sim, content, pp, joint):
        return {"acc": acc, "sim": sim, C: content, "pp_joint": pp, "joint": joint}

    return [
        write(tmp_path, "mit", m(0.80, 0.90, 0.60, 40.0, 0.60)),  # honest: GM 125 * 0.4 = 50
        write(tmp_path, "human", m(0.70, 0.95, 0.75, 50.0, 0.52)),  # honest: GM 125 * 0.32 = 40
        write(tmp_path, "source", m(0.10, 1.00, 1.00, 45.0, 0.0)),  # copy: no style gain, J 0
        write(tmp_path, "random_target", m(0.95, 0.78, 0.15, 30.0, 0.2)),  # sets t_J
        write(tmp_path, "fixed_target", m(1.00, 0.92, 0.20, 5.0, 0.15)),  # Sim above mit's: Sim is fooled
        write(tmp_path, "shuffled", m(0.12, 1.00, 0.95, 100.0, 0.05)),
        # ours: dev Acc 0.81 at ep1.0 selects its test row (GM 125 * 0.24 = 30)
        write(tmp_path, "M0.seed1", m(0.81, 0.9, 0.5, 30.0, 0.45), "dev", "ep1.0", "M0", 1),
        write(tmp_path, "M0.seed1", m(0.78, 0.88, 0.55, 35.0, 0.44), "test", "ep1.0", "M0", 1),
    ]


def test_validity_table_flags_a_baseline_at_or_above_an_honest_system(files):
    frame, info = load_scores(files, (63, 71, 97, -37), CAL)
    t = validity_table(frame, info, ["mit", "human"], 0.8, 0.05)
    d = t.data.set_index(["metric", "baseline"])
    # Sim: fixed_target 0.92 is above mit (0.90) and M0 (0.88): flagged, naming both; random_target 0.78 is below
    assert not d.loc[("sim", "fixed_target"), "below_every_honest"]
    assert d.loc[("sim", "fixed_target"), "not_below"] == "mit;M0"
    assert d.loc[("sim", "random_target"), "below_every_honest"]
    assert d.loc[("sim", "random_target"), "worst_honest"] == "M0"
    # PP (lower is better): every baseline but shuffled has PP at or below some honest system's
    assert d.loc[("pp_joint", "shuffled"), "below_every_honest"]
    assert not d.loc[("pp_joint", "fixed_target"), "below_every_honest"]
    # the default GM: every baseline's J is at or below t_J = 0.2, so exactly 0; honest systems above 0
    # mit: 100 (0.6 - 0.2) / 0.8 = 50; the worst honest system is M0 (test J 0.44: 125 * 0.24 = 30)
    g = frame.set_index("system")["gm"]
    assert g["mit"] == pytest.approx(50.0) and g["human"] == pytest.approx(40.0)
    for b in ("source", "random_target", "fixed_target", "shuffled"):
        assert d.loc[("gm", b), "score"] == 0.0 and d.loc[("gm", b), "below_every_honest"]
    assert d.loc[("gm", "source"), "worst_honest"] == "M0"
    assert d.loc[("gm", "source"), "worst_honest_score"] == pytest.approx(30.0)
    # P&G's GM is fooled by the fixed sentence: (37 * 21 * min(92, 42))^(1/3) = 32.0 > mit's (17 * 19 * 57)^(1/3)
    # = 26.4 and M0's (15 * 17 * 62)^(1/3) = 25.1
    assert not d.loc[("gm_pg", "fixed_target"), "below_every_honest"]
    md = "\n".join(" | ".join(r) for r in t.rows)
    assert "✗" in md and "✓" in md and "source" in t.columns


def test_separation_and_word_order_tables():
    checks = {
        "separation": {
            "pairs": "p",
            "n_pairs": 4,
            "metrics": {
                "sim": {
                    "mean_true": 0.9,
                    "mean_shuffled": 0.8,
                    "gap": 0.1,
                    "auc": 0.75,
                    "higher_is_better": True,
                }
            },
            "skipped": {"wmd_masked": "missing evaluator file(s): word2vec_masked.kv"},
        },
        "word_order": {
            "swaps_per_line": 3,
            "seed": 0,
            "systems": {
                "mit": {
                    "swap": {
                        "acc": {"score": 0.8},
                        "sim": {"score": 0.9},
                        C: {"score": 0.6},
                        "pp_joint": {"score": 28.0},
                        "joint": {"score": 0.5},
                    },
                    "shuffle": {
                        "acc": {"score": 0.8},
                        "sim": {"score": 0.9},
                        C: {"score": 0.55},
                        "pp_joint": {"score": 90.0},
                        "joint": {"score": 0.3},
                    },
                }
            },
        },
    }
    s = separation_table(checks)
    assert s.data.iloc[0]["auc"] == 0.75 and "word2vec_masked.kv" in " ".join(s.notes)
    # the outputs as they are: the system's own score file (rule score), not scored again by the checks
    original = {
        "acc": {"score": 0.8},
        "sim": {"score": 0.9},
        C: {"score": 0.6},
        "pp_joint": {"score": 20.0},
        "joint": {"score": 0.6},
    }
    w = word_order_table(checks, (63, 71, 97, -37), CAL, {"mit": original})
    r = w.data.iloc[0]
    # default GM: J 0.6 -> 0.5 swapped -> 0.3 shuffled: 125 * (0.4, 0.3, 0.1) = 50, 37.5, 12.5 (both ✓);
    # P&G's: PP 20 -> 28 raises theirs, min{[97 - PP]+, [PP + 37]+} 57 -> 65 (✗)
    assert r["gm"] == pytest.approx(50.0) and r["gm_swap"] == pytest.approx(37.5)
    assert r["gm_shuffle"] == pytest.approx(12.5)
    assert r["gm_pg"] == pytest.approx((17 * 19 * 57) ** (1 / 3)) and r["gm_pg_swap"] == pytest.approx(
        (17 * 19 * 65) ** (1 / 3)
    )
    assert w.rows[0][2].endswith("✓") and w.rows[0][5].endswith("✗")
    assert r["pp"] == 20.0 and r["pp_swap"] == 28.0
    # a system without its score file: no GM as it is, so no ✓ or ✗ either
    bare = word_order_table(checks, (63, 71, 97, -37), CAL, {}).data.iloc[0]
    assert bare["gm"] is None and bare["gm_swap"] == pytest.approx(37.5)
    assert separation_table({"separation": None}).empty


def test_gm_vs_human_is_the_system_level_spearman(files, tmp_path):
    frame, _ = load_scores(files, (63, 71, 97, -37), CAL)
    rated = tmp_path / "rated.tsv"
    rows = [("mit", 3, 3, 3), ("human", 5, 5, 5), ("source", 1, 1, 1), ("random_target", 2, 2, 2)]
    pd.DataFrame(rows, columns=["system", "grammaticality", "sentiment", "topic"]).to_csv(
        rated, sep="\t", index=False
    )
    out = gm_vs_human(frame, rated)
    # human overall: human 5 > mit 3 > random_target 2 > source 1 -> ranks (mit, human, random, source) 2, 1, 3, 4;
    # default GM: mit 50 > human 40 > random 0 = source 0 -> ranks 1, 2, 3.5, 3.5. Pearson of the ranks: sum dx dy = 3.5, sum dx^2 = 4.5, sum dy^2 = 5 -> 3.5 / sqrt(22.5)
    assert out["n_systems"] == 4 and out["gm"] == pytest.approx(3.5 / 22.5**0.5, abs=1e-9)
    assert gm_vs_human(frame, None) is None


def test_build_tables_writes_the_validity_tables(files, tmp_path):
    paths = build.build_tables(
        files, tmp_path / "t", gm_t=(63, 71, 97, -37), calibration=CAL, checks=None, honest=["mit", "human"]
    )
    names = {p.name for p in paths}
    assert {"validity.md", "content_separation.csv", "word_order.tex"} <= names
    assert "fixed_target" in (tmp_path / "t" / "validity.md").read_text()
    # the word-order table's row as it is comes from the system's score file: mit's PP 40 there, 60 swapped
    swapped = {
        "acc": {"score": 0.8},
        "sim": {"score": 0.9},
        C: {"score": 0.6},
        "pp_joint": {"score": 60.0},
        "joint": {"score": 0.5},
    }
    checks = {
        "word_order": {
            "swaps_per_line": 3,
            "seed": 0,
            "systems": {"mit": {"swap": swapped, "shuffle": swapped}},
        }
    }
    build.build_tables(files, tmp_path / "w", calibration=CAL, checks=checks, originals=[files[0]])
    row = pd.read_csv(tmp_path / "w" / "word_order.csv").iloc[0]
    assert row["system"] == "mit" and row["pp"] == 40.0 and row["pp_swap"] == 60.0
    # its default GM from its score file's J 0.6: 125 * 0.4 = 50; swapped J 0.5: 37.5
    assert row["gm"] == pytest.approx(50.0, abs=1e-9) and row["gm_swap"] == pytest.approx(37.5, abs=1e-9)
