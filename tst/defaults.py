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

from tst.names import NATURALNESS_KINDS

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


def evaluator_block(evaluators: dict | None, section: str) -> dict:
    """One evaluator's settings from an `evaluators:` config block (a run's; {} for config.yaml's alone):
    config.yaml's evaluators.<section> with the block's keys over it, and the block's precision and device (when
    set) over config.yaml's. "naturalness.lr" / "naturalness.nn": the naturalness block's shared keys (not its
    split and checkpoint) and the kind's own; only the torch classifier, nn, takes a precision and a device.
    What the workflow's tst.stages.evaluator_settings and naturalness_settings and a library call's
    evaluator_defaults all resolve through, so the three cannot drift apart."""
    ev, shipped = evaluators or {}, config()["evaluators"]
    precision = ev.get("precision", shipped["precision"])
    if section.startswith("naturalness."):
        kind = section.removeprefix("naturalness.")
        nat = {**shipped["naturalness"], **(ev.get("naturalness") or {})}
        out = {k: v for k, v in nat.items() if k not in (*NATURALNESS_KINDS, "split", "checkpoint")}
        out.update({**shipped["naturalness"][kind], **((ev.get("naturalness") or {}).get(kind) or {})})
        if kind != "nn":
            return out
        out["precision"] = precision
    else:
        out = {"precision": precision, **shipped[section], **(ev.get(section) or {})}
    device = ev.get("device", shipped.get("device"))
    if device:
        out["device"] = device
    return out


def evaluator_defaults(section: str, given: dict | None = None) -> dict:
    """The one resolved block a library call trains an evaluator with (tst.evaluators: train_lm,
    train_classifier, train_acceptability, ...): what the workflow's tst.stages.evaluator_settings gives on
    config.yaml for a dataset that sets nothing of its own (evaluator_block of config.yaml alone, the schema's
    vocabulary min_count), with the caller's keys `given` over it. So a call that names a few keys trains as the
    workflow would with the rest, never with a literal of the code's own (tests/evaluators/test_settings.py holds
    the two routes equal). Here, not in tst.stages, so that training code imports no workflow code."""
    return {
        "min_count": schema_default("datasets", "any", "vocab", "min_count"),
        **evaluator_block({}, section),
        **(given or {}),
    }


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
