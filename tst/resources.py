"""What one training job asks for (threads, GPUs, memory, runtime), and whether it fits one node.

The config's `evaluators.resources` (+ `evaluators.threads`) and `transfer.resources` are the one place
per-rule resources are set; the rules read them through `job_resources`. On a cluster every SLURM submission
runs on one node; the profile states what one submission may ask for with Snakemake's own limits
(profiles/slurm: `cores` and `resources: mem_mb / gpu`). Snakemake packs group jobs into layers that fit
those limits, but a single job that asks for more is silently cut down to them (or, without limits, waits in
the queue forever), so `check_fits_node` stops the run first, naming the setting to change.
"""

from __future__ import annotations

from tst.defaults import default
from tst.io import ConfigError

# Per-job defaults of the training rules where the config leaves a key out: config.yaml's (no GPU).
DEFAULTS = {
    "evaluators": {"threads": default("evaluators", "threads"), **default("evaluators", "resources")},
    "transfer": dict(default("transfer", "resources")),
}
# limit -> (what a job asks for, unit, the profile key and the command-line flag that set the limit)
NODE_SETTINGS = {
    "cores": ("threads", "CPUs", "cores", "--cores N"),
    "mem_mb": ("mem_mb", "MB", "resources: mem_mb", "--resources mem_mb=N"),
    "gpu": ("gpu", "GPUs", "resources: gpu", "--resources gpu=N"),
}


def job_resources(config: dict, section: str) -> dict[str, int]:
    """threads, gpu, mem_mb and runtime of one training job of `section` (evaluators | transfer): the config's
    `<section>.resources` over DEFAULTS; an evaluator's threads are `evaluators.threads`."""
    block = config.get(section) or {}
    resources = {**DEFAULTS[section], **(block.get("resources") or {})}
    if section == "evaluators":
        resources["threads"] = block.get("threads", DEFAULTS[section]["threads"])
    return resources


def config_keys(section: str) -> dict[str, str]:
    """The config key that sets each resource of a `section` job (for messages)."""
    keys = {name: f"{section}.resources.{name}" for name in DEFAULTS[section]}
    if section == "evaluators":
        keys["threads"] = "evaluators.threads"
    return keys


def node_size(limits) -> dict:
    """The node size a run states, from its per-submission limits: `_cores` (--cores), mem_mb and gpu
    (--resources), as numbers or as Snakemake's Resource objects (the number in `.value`); None: not
    stated."""
    size = {}
    for name, key in (("cores", "_cores"), ("mem_mb", "mem_mb"), ("gpu", "gpu")):
        limit = limits.get(key)
        size[name] = getattr(limit, "value", limit)
    return size


def oversized(config: dict, node: dict) -> list[str]:
    """One line per (config key, node resource) where a single job asks for more than a node has.

    `node` maps cores / mem_mb / gpu to the per-submission limit (None or missing: not stated, not
    checked)."""
    problems = []
    for section in DEFAULTS:
        asked, keys = job_resources(config, section), config_keys(section)
        for limit_name, (resource, unit, profile_key, flag) in NODE_SETTINGS.items():
            limit = node.get(limit_name)
            if limit is not None and asked[resource] > limit:
                problems.append(
                    f"{keys[resource]} asks {asked[resource]} {unit} per job, more than one submission may: "
                    f"{limit} {unit} (the profile's `{profile_key}`, or {flag})"
                )
    return problems


def check_fits_node(config: dict, node: dict, profile: str = "profiles/slurm/config.yaml") -> None:
    """Raise ConfigError when a training job cannot fit one node, saying which setting to change."""
    problems = oversized(config, node)
    if problems:
        raise ConfigError(
            "a job is larger than what the profile lets one submission ask for (the node size), "
            "so it could not run as asked:\n  "
            + "\n  ".join(problems)
            + f"\nSet the node size in {profile} to your nodes' (sinfo -N -o '%N %c %m %G' lists their CPUs, "
            "MB and GPUs), or lower the config key named above."
        )
