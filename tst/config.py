"""The workflow config beyond its JSON schema: checks with messages that name the key and the fix, run before any
job (rules/common.smk): the config's own keys (check_config), the data every run dataset reads (check_data), the
paraphrase pairs (check_paraphrases). A check reads the config and looks at data_dir: it never reaches the network
and never changes the config it is given (the downloads and the host probe: tst.data.downloads; the config
without the extras left out: without_extras, a copy). The settings each stage reads: tst.stages; the files each
rule reads: tst.rule_inputs."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from tst import baselines, names, variants
from tst.data.normalize import length_limits
from tst.data.references import check_references
from tst.data.sources import extracted_files, url_for
from tst.io import ConfigError  # raised by the checks here; tests and rules import it from tst.config too
from tst.rule_inputs import data_needs
from tst.stages import (
    checkpoints_per_epoch,
    epochs,
    evaluator_settings,
    human_systems,
    paraphrase_variants,
    trained_datasets,
)

# Systems every dataset gets without training (scripts/derived_systems.py, the sanity baselines of tst.baselines).
DERIVED_SYSTEMS = ("source", "reference", *baselines.BUILT)


def _name(value, key: str) -> str:
    if not names.is_safe_name(value):
        raise ConfigError(
            f"config key {key}: {value!r} is not a safe name (it becomes a folder, a wildcard and a table row); "
            f"use letters, digits, '_', '-' and '.', starting with a letter or digit, no '..'"
        )
    return value


def check_config(config: dict, data_dir=None) -> None:
    """Raise ConfigError naming the key and what is allowed (run after snakemake.utils.validate); with the
    data_dir, also that every paraphrase variant has pairs to read (check_paraphrases)."""
    datasets = config.get("datasets") or {}
    for name, ds in datasets.items():
        _name(name, f"datasets.{name}")
        styles = ds.get("styles", [])
        if len(styles) != 2:
            raise ConfigError(
                f"config key datasets.{name}.styles: exactly two style names are needed, got {styles}"
            )
        if not all(isinstance(s, str) and s.strip() for s in styles) or styles[0] == styles[1]:
            raise ConfigError(
                f"config key datasets.{name}.styles: two distinct, non-blank style names are needed, got {styles}"
            )
        lo, hi = length_limits(ds.get("length"))
        if lo > hi:
            raise ConfigError(
                f"config key datasets.{name}.length: min_words {lo} > max_words {hi} (the schema's default where "
                f"unset); set both"
            )
        for system in ds.get("systems") or {}:
            _name(system, f"datasets.{name}.systems.{system}")
            if names.parse_system(system) or system in DERIVED_SYSTEMS:
                raise ConfigError(
                    f"config key datasets.{name}.systems.{system}: the name is reserved for "
                    f"{'our trained models (variant.seedN)' if names.parse_system(system) else 'a system every dataset gets'}; rename it"
                )
        for i, system in enumerate(ds.get("human_systems") or []):
            _name(system, f"datasets.{name}.human_systems[{i}]")
    if "run" in config and not config["run"]:  # (a partial config without the key: the schema requires it)
        allowed = ", ".join(sorted(datasets)) or "(none defined)"
        raise ConfigError(
            f"config key run: no dataset to build (run: {config.get('run')!r}); name at least one of: {allowed}, "
            "e.g. run: [demo]"
        )
    for name in config.get("run", []):
        if name not in datasets:
            allowed = ", ".join(sorted(datasets)) or "(none defined)"
            raise ConfigError(
                f"config key run: unknown dataset {name!r}; allowed: {allowed}. "
                f"Define it under datasets: or pass its overlay, e.g. --configfile configs/{name}.yaml"
            )
    _check_transfer(config.get("transfer") or {}, datasets, config.get("run", []))
    for name in config.get("run", []):
        lm = evaluator_settings(config, "lm", name)
        if lm["style_init"] == "joint":
            try:
                names.check_epochs(lm["style_epochs"], int(lm["evals_per_epoch"]))
            except ValueError as e:
                raise ConfigError(f"config key evaluators.lm.style_epochs (dataset {name}): {e}") from None
    if data_dir is not None:
        check_paraphrases(config, data_dir)
    score = config.get("score") or {}
    for kind, ext in (score.get("naturalness") or {}).items():
        if names.NATURALNESS_KINDS.get(kind) != ext:
            allowed = ", ".join(f"{k}: {e}" for k, e in names.NATURALNESS_KINDS.items())
            raise ConfigError(
                f"config key score.naturalness.{kind}: {kind}: {ext} is not a naturalness "
                f"classifier; allowed: {allowed}"
            )


def _check_transfer(tr: dict, datasets: dict, run: list) -> None:
    if "model" in tr:
        raise ConfigError(
            "config key transfer.model: the model is now part of each variant; move it into "
            f"transfer.variants.<name>.model ({' | '.join(variants.MODELS)})"
        )
    defined = tr.get("variants") or {}
    for name, variant in defined.items():
        _name(name, f"transfer.variants.{name}")
        for problem in variants.problems(variant):
            raise ConfigError(f"config key transfer.variants.{name}: {problem}")
    for i, name in enumerate(tr.get("run_variants") or []):
        if name not in defined:
            raise ConfigError(
                f"config key transfer.run_variants[{i}]: unknown variant {name!r}; defined: "
                f"{', '.join(defined) or '(none)'} (add it under transfer.variants)"
            )
    for i, name in enumerate(tr.get("datasets") or []):
        if name not in datasets:
            raise ConfigError(
                f"config key transfer.datasets[{i}]: unknown dataset {name!r}; allowed: "
                f"{', '.join(sorted(datasets))}"
            )
        if name not in run:
            raise ConfigError(
                f"config key transfer.datasets[{i}]: {name!r} is not in run ({', '.join(run)}), so "
                f"no model would train on it; add it to run or remove it from transfer.datasets"
            )
    n_epochs = epochs({"transfer": tr})
    try:
        labels = names.checkpoint_labels(n_epochs, checkpoints_per_epoch({"transfer": tr}))
    except ValueError as e:
        raise ConfigError(str(e)) from None
    for i, label in enumerate(tr.get("test_checkpoints") or []):
        if label not in labels:
            raise ConfigError(
                f"config key transfer.test_checkpoints[{i}]: {label} is not a checkpoint of a "
                f"{n_epochs}-epoch run ({labels[0]} ... {labels[-1]})"
            )


# What leaving an optional extra out costs: the report's tables and plots that no longer show it.
SYSTEM_TABLES = "leaderboard, pang_gimpel, bleu_ref, metrics_all, validity and the tradeoff plots"


RATINGS_TABLES = "metric_vs_human and aggregation (and the GM thresholds learned from human preferences)"


@dataclass(frozen=True)
class DataCheck:
    """What check_data found for the optional extras (an extra: `systems.<name>` or `human_ratings` of a run
    dataset): those left out, {(dataset, extra): why}, and the missing files of the others that have a URL,
    {(dataset, extra): [relative path]}, for the main process to fetch (tst.data.downloads.fetch_extras) or the
    download rule to make."""

    data_dir: str
    left_out: dict[tuple[str, str], str]
    pending: dict[tuple[str, str], list[str]]

    @property
    def warnings(self) -> list[str]:
        """One warning per extra left out: its key, why, the tables that no longer show it and the fix."""
        out = []
        for (name, extra), why in self.left_out.items():
            lost = RATINGS_TABLES if extra == "human_ratings" else SYSTEM_TABLES
            out.append(
                f"datasets.{name}.{extra} is left out: {why}. The {name} report's {lost} do not show it; "
                f"place the file under {self.data_dir} (or let its download succeed) and rerun to add it back."
            )
        return out


def check_data(config: dict, data_dir, failed: dict[str, str] | None = None, job: bool = False) -> DataCheck:
    """Before any job: every file a run dataset reads is present under data_dir, or can be downloaded (a URL),
    or is made from a released original that can. A corpus file that cannot stops the run (ConfigError: the
    files, why, what to do); an optional extra (a released system, human ratings) that cannot is left out
    (DataCheck.left_out; without_extras drops it from a copy of the config). A missing extra file with a URL
    is pending (planned for download), unless `failed` ({relative path: why}, from
    tst.data.downloads.fetch_extras) says its download failed, or job=True (a job's own process, after the
    main process fetched what it could: a missing extra file is one whose download failed). In the main
    process (job=False) the present reference files are read and checked too (tst.data.references.
    check_references: InputError naming the file, the line and the fix). Reads the config and looks at
    data_dir; never downloads and never changes `config`."""
    datasets = config.get("datasets") or {}
    derived = extracted_files(datasets)
    failed = failed or {}
    if not job:  # a reference file read wrong (two forms mixed, a source no test sentence) stops the run here
        check_references(config, data_dir)

    def obtainable(rel: str) -> bool:
        if (Path(data_dir) / rel).exists() or url_for(datasets, rel):
            return True
        return rel in derived and obtainable(derived[rel][0])

    left_out, to_fetch = {}, {}
    for name in config.get("run") or []:
        ds = datasets[name]
        if (ds.get("source") or {}).get("kind") != "files":
            continue
        corpus, extras = data_needs(config, name)
        missing = [rel for rel in corpus if not obtainable(rel)]
        if missing:
            why = (ds["source"].get("unavailable") or "").strip() or (
                f"no download URL is configured for {'them' if len(missing) > 1 else 'it'} "
                f"(datasets.{name}.source.urls)"
            )
            raise ConfigError(
                f"dataset {name}: {', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing from the data "
                f"folder {data_dir} and cannot be downloaded: {why} Place the files there, or point data_dir "
                f"(config) / $TST_DATA_DIR at a folder that has them, or leave {name} out of `run`."
            )
        dropped = set()
        for extra, files in extras.items():
            why, pending = _unavailable(datasets, data_dir, files, failed, job)
            if extra == "human_ratings" and not why:  # the analysis scores the rated systems
                gone = [s for s in human_systems(config, name) if s in dropped]
                why = f"the rated systems {', '.join(gone)} are left out" if gone else None
            if why:
                left_out[(name, extra)] = why
                if extra != "human_ratings":
                    dropped.add(extra.split(".", 1)[1])
            elif pending:
                to_fetch[(name, extra)] = pending
    return DataCheck(str(data_dir), left_out, to_fetch)


def _unavailable(
    datasets: dict, data_dir, files: list[str], failed: dict[str, str], job: bool
) -> tuple[str | None, list[str]]:
    """(why an optional extra's files cannot be had, None when each is present or pending; its pending files:
    missing, with a URL)."""
    pending = []
    for rel in files:
        if (Path(data_dir) / rel).exists():
            continue
        url = url_for(datasets, rel)
        if not url or job:
            return f"{rel} is missing from {data_dir}" + ("" if url else " and has no download URL"), []
        if rel in failed:
            return failed[rel], []
        pending.append(rel)
    return None, pending


def without_extras(config: dict, left_out) -> dict:
    """A copy of `config` without the optional extras left out (DataCheck.left_out's (dataset, extra) keys);
    `config` itself is unchanged."""
    kept = copy.deepcopy(config)
    for name, extra in left_out:
        ds = kept["datasets"][name]
        if extra == "human_ratings":
            del ds["human_ratings"]
        else:
            del ds["systems"][extra.split(".", 1)[1]]
    return kept


def check_paraphrases(config: dict, data_dir) -> None:
    """Before any job runs: every dataset a paraphrase variant trains on has pairs to read (the demo makes its
    own; a files dataset names them in datasets.<name>.paraphrase: a file under data_dir, non-empty, or one the
    download rule fetches from its url). Otherwise one ConfigError naming the variants, the dataset and how to
    supply pairs."""
    para = paraphrase_variants(config)
    if not para:
        return
    for ds in trained_datasets(config):
        cfg = config["datasets"][ds]
        if (cfg.get("source") or {}).get("kind") == "demo":
            continue
        spec = cfg.get("paraphrase") or {}
        path = Path(data_dir) / spec["file"] if spec.get("file") else None
        if path is None:
            why = f"datasets.{ds}.paraphrase is not set"
        elif path.is_file() and path.stat().st_size > 0:
            continue
        elif path.is_file():
            why = f"datasets.{ds}.paraphrase.file {path} is empty"
        elif url_for(config["datasets"], spec["file"]):
            continue  # the download rule fetches it (needs internet)
        else:
            why = f"datasets.{ds}.paraphrase.file {path} does not exist and has no url"
        raise ConfigError(
            f"transfer variant{'s' if len(para) > 1 else ''} {', '.join(para)} (lambda_para > 0: Pang & Gimpel's "
            f"paraphrase loss, eq. 5) need{'' if len(para) > 1 else 's'} paraphrase pairs on dataset {ds}, and "
            f"{why}. Supply pairs: a `u<TAB>v` file under data_dir ({data_dir}) named in "
            f"datasets.{ds}.paraphrase.file; or, with internet, add --configfile configs/paranmt.yaml "
            f"(ParaNMT-5M, Wieting & Gimpel 2018, the corpus Pang & Gimpel sampled 90K pairs from: downloaded "
            f"once); or leave {', '.join(para)} out of transfer.run_variants."
        )
