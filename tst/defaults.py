"""The one home of every tunable's default: config.yaml (the demo run, which Snakemake loads under every
--configfile overlay) and, for keys config.yaml leaves out, the schema's `default:` (which Snakemake's
validate fills in). Code that runs without a config (tst score, library calls) reads its defaults here,
never a literal of its own. Torch-free and import-light: only yaml."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent  # the clone (scripts/tst links to ../tst)
CONFIG = ROOT / "config.yaml"
SCHEMA = ROOT / "schemas" / "config.schema.yaml"
PAPER = ROOT / "configs" / "paper_dimensions.yaml"


# libyaml's parser when PyYAML was built with it (the wheels are): the same documents as yaml.safe_load, 8x faster.
# The workflow and every training and scoring job read config.yaml here (measured: 0.18 s of each `snakemake`
# start for config.yaml and the schema, 0.02 s with it).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _load(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=_LOADER)  # a safe loader: plain data only


def default(*keys: str):
    """config.yaml's value at the path `keys`, e.g. default("score", "gm_t"); KeyError when it has none."""
    node = _load(CONFIG)
    for k in keys:
        node = node[k]
    return node


def paper_transfer() -> dict:
    """config.yaml's `transfer:` block with configs/paper_dimensions.yaml's keys over it (the papers' model sizes
    and training lengths): the settings of bench scripts that time training at paper dimensions."""
    return {**default("transfer"), **_load(PAPER)["transfer"]}


def schema_default(*keys: str):
    """The schema's `default:` of the key at the path `keys`; a dataset's keys are under ("datasets", any
    name), e.g. schema_default("datasets", "demo", "vocab", "min_count"). KeyError when it has none."""
    schema = _load(SCHEMA)
    node = schema
    for k in keys:
        node = node["properties"][k] if k in node.get("properties", {}) else node["additionalProperties"]
        if "$ref" in node:
            node = schema["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node["default"]
