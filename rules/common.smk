# Helpers shared by every rule file: config validation, dataset lookups, target lists.
# Rules hold no logic beyond file names; everything else lives in the tst package.
import os
import shlex
import sys
from pathlib import Path

from snakemake.utils import validate

from tst.config import check_config
from tst.data.sources import resolve_data_dir

validate(config, schema="../schemas/config.schema.yaml")
check_config(config)

RESULTS = "results"
# rules run `python {SCRIPTS}/x.py`: the interpreter that runs snakemake comes first on PATH,
# so a venv works without activation, and scripts are found from any working directory.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
SCRIPTS = str(Path(workflow.basedir) / "scripts")
DATASETS = list(config["run"])
STYLES = ["0", "1"]
SPLITS = ["train", "dev", "test"]


wildcard_constraints:
    dataset="|".join(sorted(config["datasets"])) or "none",
    split="train|dev|test",
    style="0|1",
    seed=r"\d+",
    checkpoint=r"ep\d+\.\d|final",


def quoted(paths):
    """Paths joined for a shell command line, each quoted (a path never reaches a shell unquoted)."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    return " ".join(shlex.quote(str(p)) for p in paths)


def dataset_config(dataset):
    return config["datasets"][dataset]


def data_dir():
    """Where released corpora are read from (config data_dir, $TST_DATA_DIR, ../shared/data, resources/data)."""
    return str(resolve_data_dir(config.get("data_dir")))


def prepared(dataset, name):
    return f"{RESULTS}/{dataset}/data/{name}"


# systems every dataset gets without training: the untransferred input, and the human references when the
# config declares no `human` system of its own (rules untransferred_system, reference_system)
DERIVED_SYSTEMS = ["source", "reference"]


def has_references(dataset):
    """Human rewrites of the test set exist: configured reference files, or the demo corpus's own."""
    cfg = dataset_config(dataset)
    return bool(cfg.get("references")) or cfg["source"]["kind"] == "demo"


def dataset_systems(dataset):
    """Every system of a dataset that is not ours: configured external ones plus the derived ones."""
    cfg = dataset_config(dataset)
    systems = list(cfg.get("systems") or {})
    systems.append("source")
    if "human" not in systems and has_references(dataset):
        systems.append("reference")
    return systems


def all_targets():
    """Everything the main job builds, per dataset: prepared data, attribute lists, evaluators, trained
    models and their transfers, human-rating analyses, and the tables and plots (which pull in every score)."""
    targets = []
    for ds in DATASETS:
        targets.append(prepared(ds, "report.json"))
        targets += attribute_targets(ds)
        targets += evaluator_targets(ds)
        targets += transfer_targets(ds)
        targets += human_targets(ds)
        targets += report_targets(ds)
    return targets
