"""Bounded by the config: a schema-valid type with an absurd value stops where the config is loaded (rules/
common.smk: the schema, then tst.config.check_config), before any job and before the DAG is built, with the key
named. Unbounded, `epochs: 100000000` made `snakemake -n` grow past 6 GB planning its checkpoints,
`sentences_per_style: 10**12` never finished generating the demo corpus, `seeds: [-1]` failed inside numpy
without naming the key, and `run: []` did nothing, silently."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from tst.config import ConfigError, check_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "schemas" / "config.schema.yaml"


@pytest.fixture
def config():
    return yaml.safe_load((REPO / "config.yaml").read_text())


def _set(config: dict, path: str, value):
    *parents, key = path.split(".")
    node = config
    for p in parents:
        node = node[p]
    node[key] = value


@pytest.mark.parametrize(
    "path, value, named",
    [
        ("transfer.epochs", 100_000_000, r"100000000 is greater than the maximum of 1000"),
        ("transfer.checkpoints_per_epoch", 10_000, r"greater than the maximum of 100"),
        ("datasets.demo.source.sentences_per_style", 10**12, r"greater than the maximum of 1000000"),
        ("transfer.seeds", [-1], r"-1 is less than the minimum of 0"),
        ("transfer.seeds", [2**32], r"greater than the maximum of 4294967295"),
        ("transfer.seeds", [1, 1], r"has non-unique elements"),
        ("evaluators.cnn.max_epochs", 10**9, r"greater than the maximum of 1000"),
    ],
)
def test_absurd_values_are_refused_by_the_schema_with_the_key_named(config, path, value, named):
    _set(config, path, value)
    with pytest.raises(WorkflowError) as e:
        validate(config, str(SCHEMA))
    message = str(e.value)
    assert re.search(named, message), message
    # jsonschema names the key as the path into the config: On instance['transfer']['epochs']
    assert "On instance" + "".join(f"['{p}']" for p in path.split(".")) in message


def test_the_largest_allowed_values_pass(config):
    for path, value in (
        ("transfer.epochs", 1000),
        ("transfer.seeds", [0, 4294967295]),
        ("datasets.demo.source.sentences_per_style", 1_000_000),
    ):
        _set(config, path, value)
    validate(config, str(SCHEMA))


def test_an_empty_run_is_refused_naming_the_datasets(config):
    config["run"] = []
    validate(config, str(SCHEMA))  # a list of strings: the schema lets it through
    with pytest.raises(ConfigError, match=r"config key run: no dataset to build \(run: \[\]\); .* demo"):
        check_config(config)


@pytest.mark.parametrize("overlay", ["transfer: {epochs: 100000000}", "run: []"])
def test_snakemake_stops_before_planning_any_job(tmp_path, overlay):
    """The whole command a user runs: snakemake -n with the overlay ends at the config check, exit 1, with the
    key named; it never gets to build the DAG (no 'Job stats' and no .snakemake metadata of any job)."""
    (tmp_path / "overlay.yaml").write_text(overlay + "\n")
    result = subprocess.run(
        [
            str(Path(sys.executable).with_name("snakemake")),
            "-s",
            str(REPO / "Snakefile"),
            "-n",
            "--cores",
            "1",
            "--configfile",
            str(REPO / "config.yaml"),
            str(tmp_path / "overlay.yaml"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert (
        "On instance['transfer']['epochs']" if "epochs" in overlay else "config key run: no dataset"
    ) in out
    assert "Job stats" not in out and not (tmp_path / "results").exists()
