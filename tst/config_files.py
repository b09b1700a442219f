"""Config files as the workflow reads them, for the commands that take --config (tst score, tst transfer,
tst cost) and the scripts that read overlays: merged as Snakemake merges --configfile overlays (merge_configs),
checked against the workflow's schema (check_schema), a dataset's settings looked up (dataset_settings).
Without Snakemake: the commands run where only the package and its dependencies are installed."""

from __future__ import annotations

import copy
from collections.abc import Mapping


def _update(into, new: Mapping):
    """`new` merged into `into` as snakemake.utils.update_config merges it: a mapping value merges into the
    mapping it meets key by key (into {} where it meets anything else, unless it is empty), any other value
    replaces (a copy of it: the merged config shares nothing with `new`). Returns the merged value."""
    for key, value in new.items():
        if not isinstance(into, Mapping):
            into = {}
        if isinstance(value, Mapping):
            into[key] = _update(into.get(key, {}), value)
        else:
            into[key] = copy.deepcopy(value)
    return into


def merge_configs(configs: list[dict]) -> dict:
    """Config files merged as Snakemake merges --configfile overlays (snakemake.utils.update_config, written
    out here: tests/test_config_files.py checks the two agree): nested dicts key by key, a later file's value
    replacing an earlier one's. The configs given are left as they are."""
    out: dict = {}
    for c in configs:
        _update(out, c or {})
    return out


def read_configs(paths) -> dict:
    """The YAML config files at `paths`, merged in order (merge_configs) and checked against the workflow's
    schema (check_schema); yaml.YAMLError on a malformed file, ValueError on a file that holds no mapping (a
    list, a scalar, nothing: Snakemake refuses those too) or a key the workflow refuses."""
    import yaml

    configs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            config = yaml.safe_load(f)
        if not isinstance(config, dict):  # a ValueError as every config fault: the commands stop with exit 2
            raise ValueError(  # noqa: TRY004
                f"--config {path}: {_what(config)}, not a mapping of config keys; a config file holds keys at "
                "its top level (key: value, as config.yaml), and the workflow refuses it too"
            )
        configs.append(config)
    config = merge_configs(configs)
    check_schema(config, "--config " + " ".join(str(p) for p in paths))
    return config


def _what(document) -> str:
    """What a YAML document that is no mapping holds, in words."""
    if document is None:
        return "it is empty (no YAML document, or null)"
    if isinstance(document, list):
        return f"it holds a YAML list ({len(document)} item{'s' * (len(document) != 1)})"
    return f"it holds a YAML {type(document).__name__} ({str(document)[:40]!r})"


def check_schema(config: dict, where: str) -> None:
    """`config` as the workflow would see it (over config.yaml, which the Snakefile loads under every
    --configfile) validated against the workflow's schema (schemas/config.schema.yaml, JSON Schema 2020-12, as
    snakemake.utils.validate checks it in rules/common.smk; no defaults filled in: `config` is left as it is),
    so that a key the workflow refuses (a typo, a value out of range) is refused here too; ValueError naming
    `where`, the key and what is wrong (the first error the validator finds, the one Snakemake reports)."""
    from jsonschema import Draft202012Validator

    from tst import defaults

    seen = merge_configs([defaults.config(), config])
    error = next(Draft202012Validator(defaults.schema()).iter_errors(seen), None)
    if error is not None:
        key = ".".join(str(part) for part in error.absolute_path)
        raise ValueError(
            f"{where}: config key {key or '(top level)'}: {error.message}; the workflow refuses it too "
            f"(schemas/{defaults.SCHEMA.name})"
        )


def dataset_settings(config: dict, dataset: str) -> tuple[dict, dict]:
    """(the `datasets.{dataset}` block, the `nlp:` block) of a merged config; ValueError naming the key."""
    datasets = config.get("datasets") or {}
    if dataset not in datasets:
        raise ValueError(
            f"config key datasets.{dataset} not found; defined: {', '.join(sorted(datasets)) or 'none'} "
            f"(pass the dataset's overlay, e.g. --config config.yaml configs/{dataset}.yaml, or --dataset)"
        )
    return datasets[dataset], config.get("nlp") or {}
