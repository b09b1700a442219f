"""Checks of the workflow config that a JSON schema cannot express, with messages that name the fix."""

from __future__ import annotations


class ConfigError(ValueError):
    pass


def check_config(config: dict) -> None:
    """Raise ConfigError naming the key and what is allowed (run after snakemake.utils.validate)."""
    datasets = config.get("datasets") or {}
    for name in config.get("run", []):
        if name not in datasets:
            allowed = ", ".join(sorted(datasets)) or "(none defined)"
            raise ConfigError(
                f"config key run: unknown dataset {name!r}; allowed: {allowed}. "
                f"Define it under datasets: or pass its overlay, e.g. --configfile configs/{name}.yaml"
            )
    for name, ds in datasets.items():
        styles = ds.get("styles", [])
        if len(styles) != 2:
            raise ConfigError(f"config key datasets.{name}.styles: exactly two style names are needed, got {styles}")
        length = ds.get("length", {})
        if length.get("min_words", 1) > length.get("max_words", 10**9):
            raise ConfigError(
                f"config key datasets.{name}.length: min_words {length['min_words']} > max_words {length['max_words']}"
            )
