"""The workflow refuses a bad config with a message naming the key (tests/workflow/test_profiles.py: the dry runs
under the SLURM profile)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import refusal

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def dry_run(repo_root, workdir, *args):
    """snakemake -n in a fresh working directory holding a copy of the default config.yaml."""
    shutil.copy(repo_root / "config.yaml", workdir / "config.yaml")
    return subprocess.run(
        [SNAKEMAKE, "-s", str(repo_root / "Snakefile"), "-n", "--cores", "1", *args],
        cwd=workdir,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )


def overlay(tmp_path, text):
    path = tmp_path / "overlay.yaml"
    path.write_text(text)
    return str(path)


def test_default_config_dry_run_plans_the_whole_dag(default_plan):
    for rule in (
        "prepare_data",
        "train_classifier",
        "train_lm",
        "train_transfer",
        "transfer_test",
        "score_ours",
        "score_external",
        "report_tables",
    ):
        assert rule in default_plan, f"{rule} missing from the default DAG"


def test_the_style_classifiers_counterfactuals_and_labels_keys_are_settings(repo_root, tmp_path):
    """evaluators.minilm.counterfactuals (tst.nlp.negation) and labels (tst.nlp.vader) pass the schema and the
    style classifiers are
    planned (the script reads it from the settings: tests/evaluators/test_evaluator_scripts.py)."""
    on = overlay(tmp_path, "evaluators:\n  minilm: {counterfactuals: true, labels: vader}\n")
    result = dry_run(repo_root, tmp_path, "--configfile", on, "--until", "train_classifier")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "train_classifier" in result.stdout


BAD_CONFIGS = [
    ("learning_rate: 0.1\n", "learning_rate"),  # unknown top-level key
    ("datasets:\n  demo:\n    length: {max_words: fifteen}\n", "fifteen"),  # wrong type
    ("run: [nosuchdata]\n", "nosuchdata"),  # unknown dataset
    ("datasets:\n  demo:\n    ner: {enabled: true, backend_typo: 1}\n", "backend_typo"),
    # names that would reach a shell, a path or a regex stop at load, the key named
    (
        "datasets:\n  demo:\n    systems: {'x$(touch PWNED)': {file: a}}\n",
        "datasets.demo.systems.x$(touch PWNED)",
    ),
    (
        "transfer:\n  variants: {'../../x': {model: cross_aligned}}\n  run_variants: ['../../x']\n",
        "transfer.variants.../../x",
    ),
    (
        "run: ['de.*mo']\ndatasets:\n  'de.*mo': {styles: [a, b], source: {kind: demo}}\n",
        "datasets.de.*mo",
    ),
    ("transfer:\n  run_variants: [M9]\n", "transfer.run_variants[0]"),
    ("transfer:\n  variants: {X: {model: multi_decoder, lambda_adv2: 1}}\n", "lambda_adv2"),
    ("transfer:\n  model: multi_decoder\n", "transfer.variants.<name>.model"),
    # a family and a lambda are checked against tst.models.registry / tst.variants, not a schema list
    ("transfer:\n  variants: {X: {model: gpt}}\n", "model 'gpt' is not one of cross_aligned"),
    ("transfer:\n  variants: {X: {model: cross_aligned, lambda_typo: 1}}\n", "['lambda_typo']"),
    ("transfer:\n  variants: {X: {model: cross_aligned, lambda_cyc: -1}}\n", "lambda_cyc"),
    ("transfer:\n  epochs: 0.5\n", "0.5"),
    # the transfer models take CUDA when present (one GPU per job, tst.gpus); no key pins another device
    ("transfer:\n  device: cuda:1\n", "'device' was unexpected"),
    ("jobs_per_gpu: 0\n", "jobs_per_gpu"),  # GPU slots per GPU (tst.gpus): at least one
    ("transfer:\n  test_checkpoints: [ep9.0]\n  epochs: 1\n", "transfer.test_checkpoints[0]"),
    ("score:\n  naturalness: {lr: json, nm: pt}\n", "score.naturalness.nm"),
    ("evaluators:\n  lm: {lr_schedule: cosine}\n", "'cosine' is not one of ['constant', 'linear']"),
    ("evaluators:\n  minilm: {counterfactuals: 'yes'}\n", "['minilm']['counterfactuals']"),
    ("evaluators:\n  minilm: {labels: lexicon}\n", "'lexicon' is not one of ['corpus', 'vader']"),
    # a style LM's fractional epochs must end at one of its dev evaluations (2 per epoch in config.yaml)
    ("evaluators:\n  lm: {style_epochs: 0.25}\n", "evaluators.lm.style_epochs (dataset demo)"),
    # a released system's metadata: source must be owner/repository@commit, url an http(s) address
    (
        "datasets:\n  demo:\n    systems: {x: {file: a, source: fastnlp/style-transformer}}\n",
        "style-transformer",
    ),
    ("datasets:\n  demo:\n    systems: {x: {file: a, url: 'ftp://h/x.{style}'}}\n", "ftp://h/x.{style}"),
]


# Each bad config of the list, loaded as `snakemake -n` loads it (tests/conftest.py's refusal: Snakemake's API in
# this process); CLI_ROUTE: the ones also run through the `snakemake` command, which must refuse with the same text
# (a schema error; a name that would reach a shell, refused by tst.config), named by what their refusal says
CLI_ROUTE = ("learning_rate", "datasets.demo.systems.x$(touch PWNED)")


@pytest.mark.parametrize("text, expected", BAD_CONFIGS)
def test_bad_config_stops_with_the_key_named(repo_root, tmp_path, text, expected):
    shutil.copy(repo_root / "config.yaml", tmp_path / "config.yaml")
    message = refusal(repo_root, tmp_path, Path(overlay(tmp_path, text)))
    assert message is not None, "the workflow loaded"  # refused while loading: before any job is planned
    assert expected in message, message[-2000:]
    assert not (tmp_path / "PWNED").exists() and not (tmp_path.parent / "x").exists()


def test_the_default_config_loads_where_the_bad_ones_are_refused(repo_root, tmp_path):
    shutil.copy(repo_root / "config.yaml", tmp_path / "config.yaml")
    assert refusal(repo_root, tmp_path) is None


@pytest.mark.parametrize("text, expected", [c for c in BAD_CONFIGS if c[1] in CLI_ROUTE])
def test_the_snakemake_command_refuses_a_bad_config_with_the_same_text(repo_root, tmp_path, text, expected):
    result = dry_run(repo_root, tmp_path, "--configfile", overlay(tmp_path, text))
    assert result.returncode == 1
    message = result.stderr + result.stdout
    assert "Job stats" not in message  # stopped before planning any job
    refused = refusal(repo_root, tmp_path, tmp_path / "overlay.yaml")
    assert expected in refused
    for line in filter(None, map(str.strip, refused.splitlines())):
        assert line in message, (line, message[-2000:])
    assert not (tmp_path / "PWNED").exists() and not (tmp_path.parent / "x").exists()


def test_parsing_the_workflow_imports_no_heavy_library(repo_root):
    """The Snakefile and rules import only light tst modules (otherwise the DAG parse imported matplotlib and
    pandas through tst.report.build): every `from tst... import` / `import tst...` line of the workflow, run in a
    fresh interpreter, loads none of pandas, matplotlib, torch, sklearn, scipy, gensim."""
    import re

    files = [repo_root / "Snakefile", *sorted((repo_root / "rules").glob("*.smk"))]
    lines = [
        ln.strip()
        for f in files
        for ln in f.read_text().splitlines()
        if re.match(r"\s*(from tst(\.\w+)* import |import tst\b)", ln)
    ]
    assert any("tst.report" in ln for ln in lines) and len(lines) >= 5, lines
    heavy = ["pandas", "matplotlib", "torch", "sklearn", "scipy", "gensim"]
    code = "\n".join(lines) + f"\nimport sys\nprint(sorted(m for m in {heavy!r} if m in sys.modules))"
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=repo_root, capture_output=True, text=True, check=True, timeout=120
    )
    assert r.stdout.strip() == "[]", r.stdout + r.stderr
