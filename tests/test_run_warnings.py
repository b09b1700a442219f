"""What a new corpus needs said aloud: the tail baselines only where they apply (tst.stages.tails_apply), and the
warnings of a run's numbers (tst.run_warnings), each from files built here with values worked out by hand."""

import json

import pytest
import torch

from tst import afterrun, layout, stages
from tst.run_warnings import (
    acceptability_rejects,
    dataset_warnings,
    pang_gimpel_all_zero,
    read_warnings,
    rejection_rates,
    weak_style_classifiers,
    write_warnings,
)

GM_T = [63, 71, 97, -37]  # config.yaml's score.gm_t (Pang & Gimpel's Yelp thresholds)


def config(styles, **dataset):
    return {
        "datasets": {"d": {"styles": styles, "source": {"kind": "files"}, **dataset}},
        "baselines": {"run": None},
    }


@pytest.mark.parametrize(
    "styles, setting, runs",
    [
        (["negative", "positive"], None, True),
        (["pos", "neg"], None, True),
        (["humorous", "romantic"], None, False),
        (["dickens", "austen"], None, False),
        (["humorous", "romantic"], True, True),
        (["negative", "positive"], False, False),
    ],
)
def test_the_tail_baselines_run_on_sentiment_pairs_unless_the_dataset_says(styles, setting, runs):
    cfg = config(styles, **({} if setting is None else {"tail_baselines": setting}))
    built = stages.baseline_systems(cfg, "d")
    assert ("tail_clause" in built, "tail_sentence" in built) == (runs, runs)
    assert [b for b in built if not b.startswith("tail_")] == [
        "random_target",
        "nearest_target",
        "fixed_target",
        "shuffled",
        "empty",
    ]
    assert ("tail_clause" in stages.external_systems(cfg, "d")) == runs
    assert bool(stages.skipped_tails(cfg, ["d"])) == (not runs)


def test_a_skipped_tail_says_why_in_the_runs_summary(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = config(["humorous", "romantic"])
    (tmp_path / layout.root("d")).mkdir(parents=True)
    write_warnings(layout.warnings("d"), "d", ["the cnn style classifier is weak"])
    notes = afterrun.notes(cfg, ["d"])
    assert notes == [
        (
            "d: the tail baselines (tail_clause, tail_sentence) are not run: its styles ['humorous', 'romantic'] "
            "are not a negative / positive sentiment pair (datasets.d.tail_baselines: auto); set "
            "datasets.d.tail_baselines: true to run them"
        ),
        "d: WARNING: the cnn style classifier is weak",
    ]
    assert all(f"  {n}" in afterrun.message(["d"], [], notes).splitlines() for n in notes)
    # no tail baseline asked for, no warning written: nothing to say
    (tmp_path / layout.warnings("d")).unlink()
    assert afterrun.notes({**cfg, "baselines": {"run": ["empty"]}}, ["d"]) == []


def score_file(path, system, acc, sim, pp, split="test"):
    path.parent.mkdir(parents=True, exist_ok=True)
    metrics = {"acc": {"score": acc}, "sim": {"score": sim}, "pp_joint": {"score": pp}}
    path.write_text(json.dumps({"system": system, "split": split, "checkpoint": "final", "metrics": metrics}))
    return path


def test_pang_gimpels_gm_at_zero_for_every_system_is_said(tmp_path):
    """Eq. 1 with t = (63, 71, 97, -37): PP 240 gives min([97 - 240]_+, [240 + 37]_+) = 0, so GM 0 whatever Acc
    and Sim; Acc 0.9, Sim 0.8, PP 50: (27 * 9 * 47)^(1/3) = 22.5 > 0."""
    at_240 = [
        score_file(tmp_path / s / "test.final.json", s, 0.95, 0.9, 240.0) for s in ("reference", "source")
    ]
    (warning,) = pang_gimpel_all_zero(at_240, GM_T)
    assert "0 for every one of the 2 scored systems" in warning and "[63, 71, 97, -37]" in warning
    fine = score_file(tmp_path / "m" / "test.final.json", "m", 0.9, 0.8, 50.0)
    assert pang_gimpel_all_zero([*at_240, fine], GM_T) == []
    # dev runs (our checkpoints' trajectories) are not what the leaderboard ranks
    dev = score_file(tmp_path / "m" / "dev.ep1.json", "m", 0.9, 0.8, 50.0, split="dev")
    assert len(pang_gimpel_all_zero([*at_240, dev], GM_T)) == 1


def classifier(path, acc):
    torch.save({"kind": "text_cnn", "metrics": {"dev_accuracy": acc, "n_train": 10}}, path)
    return str(path)


def test_a_style_classifier_below_085_dev_accuracy_is_said(tmp_path):
    files = {
        "cnn": classifier(tmp_path / "style_cnn.pt", 0.77),
        "minilm": classifier(tmp_path / "m.pt", 0.85),
    }
    (warning,) = weak_style_classifiers(files)
    assert warning.startswith(
        "the cnn style classifier (style_cnn.pt) reaches a dev accuracy of 0.770, below 0.85"
    )
    assert weak_style_classifiers({"minilm": files["minilm"]}) == []


def source_tsv(path, p_real: dict[int, list[float]]):
    rows = ["i\tsource_style\tacc\tacceptability"]
    i = 0
    for st, values in p_real.items():
        for v in values:
            rows.append(f"{i}\t{st}\t1.0\t{v!r}")
            i += 1
    path.write_text("\n".join(rows) + "\n")
    return path


def test_an_acceptability_classifier_that_rejects_one_styles_own_sentences_is_said(tmp_path):
    """Style 1: 13 of 100 below 0.5 (13%), style 0: 3 of 100 (3%): 13 >= 2 x 3 and 10 points apart -> said.
    5% against 3%: not twice; 40% against 30%: not twice; 8% against 3.5%: twice but 4.5 points."""
    tsv = source_tsv(tmp_path / "a.tsv", {0: [0.1] * 3 + [0.9] * 97, 1: [0.49] * 13 + [0.5] * 87})
    assert rejection_rates(tsv) == {0: 0.03, 1: 0.13}
    (warning,) = acceptability_rejects(tsv, ["modern", "archaic"])
    assert warning.startswith("the acceptability classifier rejects 13.0% of style 1 (archaic)'s own test")
    assert "against 3.0% of style 0 (modern)'s" in warning
    for per_thousand in ((30, 50), (300, 400), (35, 80)):  # rejected of 1,000 per style
        quiet = source_tsv(
            tmp_path / f"{per_thousand[0]}.tsv",
            {st: [0.1] * k + [0.9] * (1000 - k) for st, k in enumerate(per_thousand)},
        )
        assert acceptability_rejects(quiet, ["a", "b"]) == [], per_thousand


def test_the_warnings_page_round_trips(tmp_path):
    files = {"cnn": classifier(tmp_path / "style_cnn.pt", 0.5)}
    scores = [score_file(tmp_path / "s" / "test.final.json", "s", 0.9, 0.8, 300.0)]
    tsv = source_tsv(tmp_path / "a.tsv", {0: [0.9] * 10, 1: [0.9] * 10})
    warnings = dataset_warnings(scores, GM_T, files, tsv, ["a", "b"])
    assert len(warnings) == 2  # P&G's GM 0 (PP 300 > 97) and the CNN at 0.5; acceptability rejects none
    write_warnings(tmp_path / "w.md", "d", warnings)
    assert read_warnings(tmp_path / "w.md") == warnings
    write_warnings(tmp_path / "none.md", "d", [])
    assert read_warnings(tmp_path / "none.md") == [] and "None" in (tmp_path / "none.md").read_text()
    assert read_warnings(tmp_path / "absent.md") == []
