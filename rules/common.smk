# Helpers shared by every rule file: config validation, dataset lookups, target lists.
# Rules hold no logic beyond file names; everything else lives in the tst package.
import os
from pathlib import Path

from snakemake.utils import validate

from tst.config import check_config
from tst.data.sources import resolve_data_dir

validate(config, schema="../schemas/config.schema.yaml")
check_config(config)

RESULTS = "results"
DATASETS = list(config["run"])
STYLES = ["0", "1"]
SPLITS = ["train", "dev", "test"]


wildcard_constraints:
    dataset="|".join(sorted(config["datasets"])) or "none",
    split="train|dev|test",
    style="0|1",
    seed=r"\d+",
    checkpoint=r"ep\d+\.\d|final",


def dataset_config(dataset):
    return config["datasets"][dataset]


def data_dir():
    """Where released corpora are read from (config data_dir, $TST_DATA_DIR, ../shared/data, resources/data)."""
    return str(resolve_data_dir(config.get("data_dir")))


def prepared(dataset, name):
    return f"{RESULTS}/{dataset}/data/{name}"


def all_targets():
    targets = []
    for ds in DATASETS:
        targets.append(prepared(ds, "report.json"))
    return targets
