"""The whole workflow on a tiny demo config: every stage runs, and the cache tells the truth: a second run has
nothing to do, nor does a moved clone or a touched script; a change of code, config or data reruns exactly
the jobs that read it."""

import copy
import json
import os
import shutil
import time

import pytest
import yaml
from conftest import (
    assert_same_artifacts,
    copy_workflow,
    planned_jobs,
    slurm_test_skip_reason,
    snakemake,
    tiny_config,
)

pytestmark = pytest.mark.slow


def test_every_stage_produces_its_artifacts(finished_run):
    ds = finished_run / "results" / "demo"
    report = json.loads((ds / "data" / "report.json").read_text())
    assert report  # counts per split and style
    for name in ("style_cnn.pt", "lm_joint.pt", "glove.kv", "idf.json", "style_lexicon.json"):
        assert (ds / "evaluators" / name).stat().st_size > 0
    scores = json.loads((ds / "scores" / "M0.seed1" / "test.ep1.0.json").read_text())
    for metric in ("acc", "sim", "pp_joint", "bleu_self_corpus", "bleu_ref_corpus", "wmd_masked"):
        assert metric in scores["metrics"], f"{metric} missing from the score file"
    # GM is derived in the report from the stored corpus scores (so changing score.gm_t reloads no evaluator)
    assert "gm" not in scores["metrics"] and "GM" in (ds / "tables" / "metrics_all.md").read_text()
    # word2vec_masked.kv was trained on text masked with the token the masked WMD uses, when Mir's rule
    # selected any style word (on the tiny demo corpus it may select none: then nothing is masked)
    lexicon = json.loads((ds / "evaluators" / "style_lexicon.json").read_text())
    details = scores["metrics"]["wmd_masked"]["details"]
    assert details["mask_in_vocab"] is (len(lexicon["0"]) + len(lexicon["1"]) > 0)
    # values, not just files: a swapped style order anywhere in rules or scripts breaks these
    source = json.loads((ds / "scores" / "source" / "test.final.json").read_text())["metrics"]
    reference = json.loads((ds / "scores" / "reference" / "test.final.json").read_text())["metrics"]
    assert source["bleu_self_corpus"]["score"] == pytest.approx(100.0)  # the untransferred text is its source
    assert reference["bleu_ref_corpus"]["score"] == pytest.approx(100.0)  # the references against themselves
    # untransferred sentences keep their own style, the human rewrites are in the target style (the tiny
    # run's CNN: 2 epochs on 400 sentences per style; a swapped style order would invert both)
    assert source["acc"]["score"] <= 0.3 and reference["acc"]["score"] >= 0.7
    from tst.metrics.gm import gm

    def gm_of(m):
        return gm(m["acc"]["score"], m["sim"]["score"], m["pp_joint"]["score"])

    assert gm_of(reference) > gm_of(source)
    for table in ("pang_gimpel", "bleu_ref", "metrics_all"):
        for ext in ("csv", "md", "tex"):
            assert (ds / "tables" / f"{table}.{ext}").stat().st_size > 0
    for plot in ("trajectories", "robust", "tradeoff_ts_cp"):
        assert (ds / "plots" / f"{plot}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_second_run_has_nothing_to_do(finished_run, repo_root):
    result = snakemake(finished_run, repo_root, "-n")
    assert planned_jobs(result.stdout) == {}, result.stdout[-3000:]


@pytest.fixture()
def moved_clone(repo_root, tmp_path):
    """A copy of the workflow and its package elsewhere (what a moved or second clone is)."""
    return copy_workflow(repo_root, tmp_path / "clone")


def test_moved_clone_and_touched_scripts_plan_nothing(finished_run, moved_clone):
    assert planned_jobs(snakemake(finished_run, moved_clone, "-n").stdout) == {}
    for script in (moved_clone / "scripts").glob("*.py"):
        script.touch()
    result = snakemake(finished_run, moved_clone, "-n")
    assert planned_jobs(result.stdout) == {}, result.stdout[-3000:]


def test_touched_results_plan_nothing(finished_run, repo_root):
    """File times alone make nothing stale, for files of any size: profiles/default raises Snakemake's
    max-checksum-file-size (default 1MB), so a newer file whose recorded checksum matches is not "updated"."""
    ds = finished_run / "results" / "demo"
    touched = []
    for folder, ahead in (("data", 120), ("evaluators", 60), ("models", 60)):  # newer than all they feed
        for p in (ds / folder).rglob("*"):
            if p.is_file():
                os.utime(p, (time.time() + ahead, time.time() + ahead))
                touched.append(p)
    assert max(p.stat().st_size for p in touched) > 1_000_000  # one above Snakemake's default checksum limit
    result = snakemake(finished_run, repo_root, "-n")
    assert planned_jobs(result.stdout) == {}, result.stdout[-3000:]


def test_warmup_setting_reruns_only_the_variant_with_a_cyclic_term(finished_run, repo_root, tmp_path):
    """M0 has no cyclic term and never reads the lambda_cyc warm-up (tst.variants.settings_read): changing it
    retrains M2 only."""
    cfg = yaml.safe_load((finished_run / "config.yaml").read_text())
    cfg["transfer"]["cyc_start"] = cfg["transfer"]["cyc_start"] + 0.5
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump(cfg))
    result = snakemake(finished_run, repo_root, "-n", "--configfile", str(overlay))
    jobs = planned_jobs(result.stdout)
    assert jobs["train_transfer"] == 1 and jobs["score_ours"] == 1, jobs
    assert "variant=M2" in result.stdout and "variant=M0" not in result.stdout


# The scores, the validity checks (they compute metrics) and what reads them: the calibrated GM's thresholds
# (from the baselines' scores) and the report; no evaluator rebuilt, no model retrained.
RESCORED = {
    "score_ours",
    "score_external",
    "validity_checks",
    "gm_calibration",
    "report_tables",
    "report_plots",
}


def assert_rescored(jobs: dict) -> None:
    assert set(jobs) == RESCORED | {"all"}, jobs
    # M0, M2; source, reference and the seven built baselines
    assert jobs["score_ours"] == 2 and jobs["score_external"] == 2 + 7


def test_metric_code_change_reruns_exactly_scores_and_reports(finished_run, moved_clone):
    bleu = moved_clone / "tst" / "metrics" / "bleu.py"
    bleu.write_text(bleu.read_text() + "\n# an edit\n")
    jobs = planned_jobs(snakemake(finished_run, moved_clone, "-n").stdout)
    assert_rescored(jobs)


def test_gm_thresholds_rerun_no_job_that_loads_an_evaluator(finished_run, repo_root, tmp_path):
    cfg = yaml.safe_load((finished_run / "config.yaml").read_text())
    cfg["score"]["gm_t"] = [50, 60, 150, -30]
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump(cfg))
    jobs = planned_jobs(snakemake(finished_run, repo_root, "-n", "--configfile", str(overlay)).stdout)
    assert set(jobs) == {"report_tables", "report_plots", "all"}, jobs


def test_scoring_option_reruns_the_scores_and_what_reads_them(finished_run, repo_root, tmp_path):
    """score.pp_count_eos reaches the score jobs as params.options: the scores, the validity checks and what
    reads them rerun; no evaluator is rebuilt and no model retrained."""
    cfg = yaml.safe_load((finished_run / "config.yaml").read_text())
    cfg["score"]["pp_count_eos"] = True
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump(cfg))
    jobs = planned_jobs(snakemake(finished_run, repo_root, "-n", "--configfile", str(overlay)).stdout)
    assert_rescored(jobs)


def test_report_setting_reruns_only_the_report(finished_run, repo_root, tmp_path):
    cfg = yaml.safe_load((finished_run / "config.yaml").read_text())
    cfg["report"]["target_acc"] = 0.5
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump(cfg))
    jobs = planned_jobs(snakemake(finished_run, repo_root, "-n", "--configfile", str(overlay)).stdout)
    assert set(jobs) <= {"report_tables", "report_plots", "all"} and "report_tables" in jobs, jobs


def test_one_dataset_change_reruns_only_that_dataset(repo_root, tmp_path):
    cfg = tiny_config(repo_root)
    cfg["datasets"]["other"] = copy.deepcopy(cfg["datasets"]["demo"])
    cfg["datasets"]["other"]["source"]["seed"] = 99
    cfg["run"] = ["demo", "other"]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    targets = ["results/demo/data/report.json", "results/other/data/report.json"]
    snakemake(tmp_path, repo_root, *targets)
    assert planned_jobs(snakemake(tmp_path, repo_root, "-n", *targets).stdout) == {}

    cfg["datasets"]["other"]["length"]["max_words"] = 10
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    result = snakemake(tmp_path, repo_root, "-n", *targets)
    # the corpus, then its report.json (rule prepare_references writes it beside the references)
    assert planned_jobs(result.stdout) == {"prepare_data": 1, "prepare_references": 1}
    assert "wildcards: dataset=other" in result.stdout
    assert "wildcards: dataset=demo" not in result.stdout


def test_identical_runs_write_identical_artifacts(finished_run, moved_clone, tmp_path):
    """A second run of the same config (from another clone, in another folder) writes the same bytes: no
    timing, date, host or path inside any artifact (issue: evaluator epoch_seconds and report.json seconds
    made every score file's evaluator sha256 differ). Compared: every score JSON and TSV, the prepared data,
    the evaluators and the tables. Where the SLURM test runs, its run through SLURM is this second run (from
    another clone, in another folder, compared the same way), so the tiny config is not run a third time."""
    if slurm_test_skip_reason() is None:
        pytest.skip(
            "test_slurm_demo.py's SLURM run is the second run here, compared with assert_same_artifacts"
        )
    second = tmp_path / "second"
    second.mkdir()
    shutil.copy(finished_run / "config.yaml", second / "config.yaml")
    snakemake(second, moved_clone)
    assert assert_same_artifacts(finished_run, second) > 50


def test_the_training_splits_attribute_lists_are_made_for_the_attribute_regularizer_only(
    finished_run, repo_root, tmp_path
):
    """Attribute hit reads the dev and test lists; the training split's (its parses: ~170 CPU s on Yelp) feed
    only a variant with lambda_attr > 0. The tiny run (M0, M2) made none; adding such a variant plans the two
    training parses and lists, and its training reads them."""
    made = sorted(
        p.name for p in (finished_run / "results" / "demo" / "attributes").glob("*.attributes.jsonl")
    )
    assert made == [f"{sp}.{s}.attributes.jsonl" for sp in ("dev", "test") for s in (0, 1)]
    cfg = yaml.safe_load((finished_run / "config.yaml").read_text())
    cfg["transfer"]["variants"]["M0attr"] = {**cfg["transfer"]["variants"]["M0"], "lambda_attr": 1}
    cfg["transfer"]["run_variants"] = [*cfg["transfer"]["run_variants"], "M0attr"]
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump(cfg))
    out = snakemake(finished_run, repo_root, "-n", "--configfile", str(overlay)).stdout
    jobs = planned_jobs(out)
    assert jobs["parse"] == jobs["attributes"] == 2 and jobs["train_transfer"] == 1, jobs
    assert "results/demo/attributes/train.0.attributes.jsonl" in out


def test_the_word_order_tables_undamaged_rows_are_what_the_validity_checks_would_score(finished_run):
    """The validity checks score only the damaged copies; the word-order table takes each system's outputs as
    they are from its score file. That file must hold what the checks themselves would compute on those outputs
    (tst.scoring.compute.score_system on the same lines, the same evaluators and options), metric by metric; and the
    table's undamaged GM is that file's."""
    import pandas as pd

    from tst import rule_inputs, stages
    from tst.io import read_json, read_lines
    from tst.metrics.registry import GM_CONTENT, add_derived
    from tst.metrics.sbert import preload_files, scoring_bf16
    from tst.scoring.compute import score_system
    from tst.scoring.evaluator_files import Evaluators
    from tst.validity import DAMAGE_KEYS

    cfg = yaml.safe_load((finished_run / "config.yaml").read_text())
    options = stages.score_options(cfg, "demo")
    ev = Evaluators(finished_run / "results" / "demo" / "evaluators")
    originals = rule_inputs.validity_report_files(cfg, "demo")["originals"]
    assert [p.split("/")[3] for p in originals] == ["reference", "M0.seed1", "M2.seed1"]
    files = rule_inputs.validity_files(cfg, "demo")
    # the sources' sentence embeddings preloaded, as the checks do
    preload_files([finished_run / f for f in files["sbert_sources"]], bf16=scoring_bf16(options))
    table = pd.read_csv(finished_run / "results" / "demo" / "tables" / "word_order.csv").set_index("system")
    for i, path in enumerate(originals[:2]):
        sources, outputs, styles = [], [], []
        for style in (0, 1):
            src = read_lines(finished_run / files["sources"][2 * i + style])
            sources += src
            outputs += read_lines(finished_run / files["outputs"][2 * i + style])
            styles += [style] * len(src)
        own = score_system(sources, outputs, styles, ev, options=options, only=DAMAGE_KEYS)
        stored = read_json(finished_run / path)
        # the MiniLM's embeddings move with their batches: by ~1e-7 in fp32, 2e-4 in bf16; J takes a cube root
        # of the content factor, whose slope near 0 turns a cosine's 1e-7 just above the bound into ~5e-3 on one
        # sentence (cbrt(1e-7)), ~1e-4 on the mean of the demo's outputs
        bound = {GM_CONTENT: (2e-4, 1e-7), "joint": (1e-2, 1e-4)}
        for key in DAMAGE_KEYS:
            tol = bound[key][0 if scoring_bf16(options) else 1] if key in bound else 1e-9
            assert stored["metrics"][key]["score"] == pytest.approx(own[key].score, rel=1e-9, abs=tol), key
        gm = add_derived(
            stored["metrics"],
            cfg["score"]["gm_t"],
            read_json(finished_run / "results/demo/validity/gm_thresholds.json"),
        )
        assert table.loc[stored["system"], "gm_pg"] == pytest.approx(gm["gm_pg"]["score"])
        # the default GM of the outputs as they are, and of each damaged copy from its J (DAMAGE_KEYS)
        assert table.loc[stored["system"], "gm"] == pytest.approx(gm["gm"]["score"])
        assert not table.loc[stored["system"], ["gm_swap", "gm_shuffle"]].isna().any()
