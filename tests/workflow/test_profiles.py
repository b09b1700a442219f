"""Profiles as Snakemake reads them, and the jobs of the paper-scale run (per rule, and as SLURM submissions).

Snakemake loads profiles/default by itself as the *workflow* profile, after any --profile, and a key set
in both is taken from the workflow profile (snakemake/cli.py: parse_args appends it last to the config files
of configargparse, where a later file wins). So the slurm profile only takes effect for keys default lacks.
"""

import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import planned_jobs, planned_once

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def profile(repo_root, name):
    return yaml.safe_load((repo_root / "profiles" / name / "config.yaml").read_text())


def parse_cli(repo_root, monkeypatch, *argv):
    """The arguments Snakemake's own command line parser makes, in the workflow folder (so profiles/default
    is found as the workflow profile, as on the command line)."""
    from snakemake.cli import parse_args

    monkeypatch.chdir(repo_root)
    _, args = parse_args(["-n", *argv])
    return args


def triggers(args):
    return {t.item_to_choice() for t in args.rerun_triggers}


def test_no_key_is_in_both_profiles(repo_root):
    # a key in both would be silently taken from profiles/default (the workflow profile wins)
    shared = set(profile(repo_root, "default")) & set(profile(repo_root, "slurm"))
    assert shared == set()


def test_slurm_profile_settings_take_effect(repo_root, monkeypatch):
    slurm, default = profile(repo_root, "slurm"), profile(repo_root, "default")
    args = parse_cli(repo_root, monkeypatch, "--profile", "profiles/slurm")
    assert slurm["latency-wait"] == 60
    assert args.latency_wait == 60  # was replaced by default's 5 before
    assert args.executor == "slurm"
    assert args.jobs == slurm["jobs"]
    # the workflow profile is still loaded, and gives what the slurm profile leaves to it
    assert triggers(args) == set(default["rerun-triggers"]) == {"mtime", "params", "input", "software-env"}
    # groups and their packing reach Snakemake as --groups / --group-components
    assert args.groups == slurm["groups"]
    assert args.group_components == slurm["group-components"]
    assert args.set_resource_scopes == {"gpu": "local"}  # at most one GPU per submission, not per cluster
    # what one submission may ask for: 1 CPU (a group runs its members one at a time), 16 GB, 1 GPU
    assert (args.cores, args.resources["mem_mb"].value, args.resources["gpu"].value) == (1, 16000, 1)
    assert args.default_resources["runtime"].value == slurm["default-resources"]["runtime"]
    # job states from squeue: sacct sees nothing on a cluster without an accounting database
    assert args.slurm_status_command == "squeue"


def test_default_profile_alone_leaves_site_settings_to_snakemake(repo_root, monkeypatch):
    args = parse_cli(repo_root, monkeypatch)
    assert triggers(args) == set(profile(repo_root, "default")["rerun-triggers"])
    assert args.executor is None and not args.groups


def test_the_scheduler_replans_every_10_s_at_the_default_rate(repo_root, monkeypatch):
    """profiles/default's max-jobs-per-timespan, as Snakemake parses it, for a local and a SLURM run: while jobs
    wait, Snakemake re-plans once per timespan (10 s, not its default 1 s), and the rate it allows is the
    default's, 100 submissions a second (1000 / 10)."""
    for argv in ((), ("--profile", "profiles/slurm")):
        limit = parse_cli(repo_root, monkeypatch, *argv).max_jobs_per_timespan
        assert (limit.max_jobs, limit.timespan) == (1000, 10)
        assert limit.max_jobs / limit.timespan == 100


def test_resources_have_one_source(repo_root):
    # per-rule resources live in the config (evaluators.resources, transfer.resources), never in a profile
    for name in ("default", "slurm"):
        assert "set-resources" not in profile(repo_root, name)
        assert "set-threads" not in profile(repo_root, name)


def slurm_dry_run(repo_root, workdir, *argv, env=None):
    """`snakemake -n --profile profiles/slurm ...` on the demo config in workdir."""
    shutil.copy(repo_root / "config.yaml", workdir / "config.yaml")
    return subprocess.run(
        [
            SNAKEMAKE,
            "-s",
            str(repo_root / "Snakefile"),
            "-n",
            "--profile",
            str(repo_root / "profiles" / "slurm"),
            *argv,
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_demo_fits_the_profile_node(repo_root, tmp_path):
    result = slurm_dry_run(repo_root, tmp_path)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert "train_transfer" in result.stdout
    assert "gpu=1" not in result.stdout  # the CPU demo asks no GPU (a cluster without one rejects gpu: 1)


def test_a_job_larger_than_the_profile_node_stops_the_run_naming_the_setting(repo_root, tmp_path):
    # paper scale asks 32000 MB per model; the profile states a 16000 MB node
    result = slurm_dry_run(
        repo_root, tmp_path, "--configfile", str(repo_root / "configs" / "paper_dimensions.yaml")
    )
    assert result.returncode != 0
    out = result.stdout + result.stderr
    assert "transfer.resources.mem_mb asks 32000 MB per job, more than one submission may: 16000 MB" in out
    assert "the profile's `resources: mem_mb`, or --resources mem_mb=N" in out
    assert "Group job" not in out  # stopped before planning (or submitting) anything


# ---- the paper-scale run: configs/yelp.yaml + paper_dimensions.yaml + paranmt.yaml under the slurm profile ----
# with the limits the profile's comment names for it (1 GPU, 32000 MB per submission)


@pytest.fixture(scope="session")
def paper_dry_run(repo_root, shared_data, tmp_path_factory):
    # with ParaNMT's pairs as the paper trains M1, M4, M5, M7 (configs/paranmt.yaml: fetched by the local
    # download rule, so no submission more); planned once for the session, whichever pytest-xdist worker asks
    # first (planned_once: a plan of thousands of jobs takes ~12 s)
    overlays = [
        str(repo_root / "configs" / n) for n in ("yelp.yaml", "paper_dimensions.yaml", "paranmt.yaml")
    ]

    def dry_run(workdir):
        return slurm_dry_run(
            repo_root,
            workdir,
            *("--resources", "gpu=1", "mem_mb=32000", "--configfile", *overlays),
            env={"TST_DATA_DIR": str(shared_data)},
        )

    return planned_once(tmp_path_factory, "paper_slurm_dry_run", dry_run)


def paper_numbers(repo_root):
    """What the configs say, worked out by hand: models, external systems, naturalness kinds."""
    base = yaml.safe_load((repo_root / "config.yaml").read_text())
    yelp = yaml.safe_load((repo_root / "configs" / "yelp.yaml").read_text())["datasets"]["yelp"]
    paper = yaml.safe_load((repo_root / "configs" / "paper_dimensions.yaml").read_text())
    models = len(paper["transfer"]["run_variants"]) * len(paper["transfer"]["seeds"])  # 8 x 3
    systems = list(yelp["systems"])  # Li et al.'s 8 (with `human`, so no `reference`) + 6 released
    external = len(systems) + 1 + (1 if yelp.get("references") and "human" not in systems else 0)  # + source
    external += len(base["baselines"]["run"])  # the sanity baselines (copy = source)
    kinds = len(base["score"]["naturalness"])  # lr, nn
    return models, len(systems), external, kinds


@pytest.mark.shared_data
def test_paper_scale_jobs_per_rule(repo_root, paper_dry_run):
    models, n_systems, external, kinds = paper_numbers(repo_root)
    assert (models, n_systems, external, kinds) == (24, 14, 22, 2)
    jobs = planned_jobs(paper_dry_run)
    expected = {
        "train_transfer": models,  # variants x seeds
        "transfer_test": models,  # one job per model (every test checkpoint)
        "score_ours": models,  # one job per system
        "score_external": external,
        "import_system": 2 * n_systems,  # per style
        "baseline_system": 2 * (external - n_systems - 1),  # per baseline and style
        "train_naturalness": kinds * (models + external),  # per system and kind
        "parse": 2 * 2,  # dev, test x styles (train: only for a variant with lambda_attr > 0, none here)
        "attributes": 2 * 2,
        "train_classifier": 3,  # cnn, lstm, minilm (the default GM's style classifier)
        "train_lm": 3,  # joint, style0, style1
        "build_embeddings": 3,  # glove, word2vec, word2vec_masked
        "embed_sources": 2,  # the sources' sentence embeddings: dev and test (our models score both)
        "prepare_data": 1,
    }
    assert {rule: jobs.get(rule) for rule in expected} == expected
    # every other rule runs once per dataset
    assert all(n == 1 for rule, n in jobs.items() if rule not in expected and rule != "untransferred_system")


def local_rules(repo_root):
    """Rules that run on the submitting host: `localrule: True`, and `all` (no action)."""
    local = {"all"}
    for smk in (repo_root / "rules").glob("*.smk"):
        for block in re.split(r"\n(?=\s*rule )", smk.read_text()):  # a rule under `if` is indented
            name = re.match(r"rule (\w+):", block.strip())
            if name and re.search(r"^\s+localrule: True", block, re.MULTILINE):
                local.add(name.group(1))
    return local


def submissions(out, local):
    """Group jobs by group name, and the rules of jobs submitted alone, from a dry run's job list."""
    groups = re.findall(r"^\[[^\]]+\] Group job (\w+) ", out, re.MULTILINE)
    alone = [r for r in re.findall(r"^(?:local)?rule (\w+):", out, re.MULTILINE) if r not in local]
    return {g: groups.count(g) for g in set(groups)}, alone


@pytest.mark.shared_data
def test_slurm_submits_tens_of_group_jobs(repo_root, paper_dry_run):
    models, _, external, _ = paper_numbers(repo_root)
    per_job = profile(repo_root, "slurm")["group-components"]["score"]
    groups, alone = submissions(paper_dry_run, local_rules(repo_root))
    assert groups == {
        "model": models,  # train_transfer + transfer_test of one model, on one GPU
        "score": math.ceil((models + external) / per_job),  # 44 systems, 8 per job -> 6
        "attributes": 1,
        "lexicons": 1,
        "report": 1,
    }
    assert sorted(alone) == [
        "prepare_data",
        "train_acceptability",
        "train_classifier",
        "train_classifier",
        "train_classifier",
        "train_lm",
        "train_lm",
        "train_lm",
    ]
    total = sum(groups.values()) + len(alone)
    jobs = planned_jobs(paper_dry_run)
    assert total == 41  # 24 models + 6 score + 3 groups + 8 single jobs
    assert (
        sum(jobs.values()) - sum(n for rule, n in jobs.items() if rule in local_rules(repo_root)) == 256
    )  # 217 + 6 released x (score, 2 imports, 2 nat.) + embed_sources for dev and test (in the lexicons group)
    # - the training split's 2 parses and 2 attribute lists (no variant with lambda_attr > 0) + the minilm style
    # classifier + the 2 tail baselines x (2 styles, score, 2 nat.)


@pytest.mark.shared_data
def test_each_model_group_is_one_model(paper_dry_run):
    blocks = re.split(r"^\[[^\]]+\]", paper_dry_run, flags=re.MULTILINE)  # a job or group job each
    models = [b for b in blocks if b.startswith(" Group job model")]
    assert models
    for block in models:
        rules = re.findall(r"^    rule (\w+):", block, re.MULTILINE)
        assert sorted(rules) == ["train_transfer", "transfer_test"]
        assert len(set(re.findall(r"wildcards: (.*)", block))) == 1  # the same dataset, variant and seed


@pytest.mark.shared_data
def test_paper_scale_resources_come_from_the_config(repo_root, paper_dry_run):
    wanted = yaml.safe_load((repo_root / "configs" / "paper_dimensions.yaml").read_text())["transfer"][
        "resources"
    ]
    block = paper_dry_run.split("rule train_transfer:", 1)[1].split("Shell command", 1)[0]
    resources = re.search(r"resources: (.*)", block).group(1)
    assert f"mem_mb={wanted['mem_mb']}," in resources
    assert f"runtime={wanted['runtime']}" in resources and f"gpu={wanted['gpu']}" in resources
