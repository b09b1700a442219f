"""Config files as the workflow reads them, for the commands that take --config (tst score, tst transfer,
tst cost) and the scripts that read overlays: merged as Snakemake merges --configfile overlays (merge_configs),
checked against the workflow's schema (check_schema), a dataset's settings looked up (dataset_settings)."""

from __future__ import annotations


def merge_configs(configs: list[dict]) -> dict:
    """Config files merged as Snakemake merges --configfile overlays, with its own function
    (snakemake.utils.update_config): nested dicts key by key, a later file's value replacing an earlier one's.
    The configs given are left as they are."""
    from snakemake.utils import update_config

    out: dict = {}
    for c in configs:
        update_config(out, c or {})
    return out


def read_configs(paths) -> dict:
    """The YAML config files at `paths`, merged in order (merge_configs) and checked against the workflow's
    schema (check_schema); yaml.YAMLError on a malformed file, ValueError on a key the workflow refuses."""
    import yaml

    configs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            configs.append(yaml.safe_load(f))
    config = merge_configs(configs)
    check_schema(config, "--config " + " ".join(str(p) for p in paths))
    return config


def check_schema(config: dict, where: str) -> None:
    """`config` as the workflow would see it (over config.yaml, which the Snakefile loads under every
    --configfile) validated with the workflow's own function and schema (snakemake.utils.validate with
    schemas/config.schema.yaml, no defaults filled in: `config` is left as it is), so that a key the workflow
    refuses (a typo, a value out of range) is refused here too; ValueError naming `where`, the key and what is
    wrong."""
    import re

    import yaml
    from snakemake.utils import validate
    from snakemake_interface_common.exceptions import WorkflowError

    from tst.defaults import CONFIG, SCHEMA

    with open(CONFIG, encoding="utf-8") as f:
        seen = merge_configs([yaml.safe_load(f), config])
    try:
        validate(seen, str(SCHEMA), set_default=False)
    except WorkflowError as e:  # around jsonschema's ValidationError
        lines = str(e).splitlines()
        what = next(
            (x.removeprefix("ValidationError: ") for x in lines if x.startswith("ValidationError")), str(e)
        )
        at = next((x for x in lines if x.startswith("On instance")), "")
        key = ".".join(a or b for a, b in re.findall(r"\['([^']*)'\]|\[(\d+)\]", at))
        raise ValueError(
            f"{where}: config key {key or '(top level)'}: {what}; the workflow refuses it too "
            f"(schemas/{SCHEMA.name})"
        ) from None


def dataset_settings(config: dict, dataset: str) -> tuple[dict, dict]:
    """(the `datasets.{dataset}` block, the `nlp:` block) of a merged config; ValueError naming the key."""
    datasets = config.get("datasets") or {}
    if dataset not in datasets:
        raise ValueError(
            f"config key datasets.{dataset} not found; defined: {', '.join(sorted(datasets)) or 'none'} "
            f"(pass the dataset's overlay, e.g. --config config.yaml configs/{dataset}.yaml, or --dataset)"
        )
    return datasets[dataset], config.get("nlp") or {}
