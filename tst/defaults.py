"""The one home of every tunable's default: config.yaml (the demo run, which Snakemake loads under every
--configfile overlay) and, for keys config.yaml leaves out, the schema's `default:` (which Snakemake's
validate fills in). Code that runs without a config (tst score, library calls) reads its defaults here,
never a literal of its own. Torch-free and import-light: only yaml.

The three files are the package's data (tst/files, read through importlib.resources), so an installed wheel
carries them: in a clone tst/files/config.yaml, config.schema.yaml and paper_dimensions.yaml are links to
config.yaml, schemas/config.schema.yaml and configs/paper_dimensions.yaml, the one copy of each to edit, which
the workflow reads; a wheel holds the files themselves (tests/test_wheel.py)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

import yaml

FILES = files("tst") / "files"
CONFIG = FILES / "config.yaml"  # config.yaml of the clone
SCHEMA = FILES / "config.schema.yaml"  # schemas/config.schema.yaml
PAPER = FILES / "paper_dimensions.yaml"  # configs/paper_dimensions.yaml


# libyaml's parser when PyYAML was built with it (the wheels are): the same documents as yaml.safe_load, 8x faster.
# The workflow and every training and scoring job read config.yaml here (measured: 0.18 s of each `snakemake`
# start for config.yaml and the schema, 0.02 s with it).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _load(path: Traversable) -> dict:
    with path.open(encoding="utf-8") as f:
        return yaml.load(f, Loader=_LOADER)  # a safe loader: plain data only


def config() -> dict:
    """config.yaml, parsed once per process (the caller must not change it: copy.deepcopy it first)."""
    return _load(CONFIG)


def schema() -> dict:
    """schemas/config.schema.yaml, parsed once per process (not to be changed either)."""
    return _load(SCHEMA)


def default(*keys: str):
    """config.yaml's value at the path `keys`, e.g. default("score", "gm_t"); KeyError when it has none."""
    node = config()
    for k in keys:
        node = node[k]
    return node


def evaluator_defaults(section: str, given: dict | None = None) -> dict:
    """The one resolved block a library call trains an evaluator with (tst.evaluators: train_lm,
    train_classifier, train_acceptability, ...): what the workflow's tst.stages.evaluator_settings gives on
    config.yaml for a dataset that sets nothing of its own - config.yaml's evaluators.<section>, its precision and
    the schema's vocabulary min_count ("naturalness.nn": tst.stages.naturalness_settings' block: the naturalness
    block's shared keys, the nn keys and the precision) - with the caller's keys `given` over it. So a call that
    names a few keys trains as the workflow would with the rest, never with a literal of the code's own
    (tests/evaluators/test_settings.py holds the two routes equal). Here, not in tst.stages, so that training
    code imports no workflow code."""
    ev = config()["evaluators"]
    if section == "naturalness.nn":
        nat = ev["naturalness"]
        shared = {k: v for k, v in nat.items() if k not in ("lr", "nn", "split", "checkpoint")}
        base = {**shared, **nat["nn"], "precision": ev["precision"]}
    else:
        base = {
            "min_count": schema_default("datasets", "any", "vocab", "min_count"),
            "precision": ev["precision"],
            **ev[section],
        }
    if ev.get("device"):
        base["device"] = ev["device"]
    return {**base, **(given or {})}


def paper_transfer() -> dict:
    """config.yaml's `transfer:` block with configs/paper_dimensions.yaml's keys over it (the papers' model sizes
    and training lengths): the settings of bench scripts that time training at paper dimensions."""
    return {**default("transfer"), **_load(PAPER)["transfer"]}


def schema_default(*keys: str):
    """The schema's `default:` of the key at the path `keys`; a dataset's keys are under ("datasets", any
    name), e.g. schema_default("datasets", "demo", "vocab", "min_count"). KeyError when it has none."""
    top = schema()
    node = top
    for k in keys:
        node = node["properties"][k] if k in node.get("properties", {}) else node["additionalProperties"]
        if "$ref" in node:
            node = top["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node["default"]
