"""The settings each stage reads, decided here once from the workflow config (rules/common.smk passes them to
the scripts as params): the trainer's and the evaluators' settings, checkpoints, the systems of a dataset, the
scoring options, the lookup tables of per-wildcard settings. The config's checks: tst.config; the files each
rule reads: tst.rule_inputs."""

from __future__ import annotations

from tst import baselines, names, variants
from tst.data.normalize import length_limits
from tst.defaults import default, evaluator_block, schema_default

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
    return int((config.get("transfer") or {}).get("beam_width", default("transfer", "beam_width")))


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
    its LMs and style classifiers at a smaller batch). config.yaml's block is under them all, so that every key
    the evaluator's training reads is here, whatever the run's config leaves out (tst.defaults.evaluator_defaults)."""
    own = (
        (config.get("datasets") or {}).get(dataset, {}).get(section)
        if section in DATASET_EVALUATOR_KEYS
        else None
    )
    return {
        "min_count": vocab_min_count(config, dataset),
        **evaluator_block(config.get("evaluators"), section),
        **(own or {}),
    }


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


def baseline_systems(config: dict, dataset: str | None = None) -> list[str]:
    """The sanity baselines built in every dataset run (config `baselines.run`, default all of
    tst.baselines.BUILT), in tst.baselines order; the copy baseline, `source`, is always there. With a dataset:
    without the tail baselines where they do not apply to it (tails_apply)."""
    run = (config.get("baselines") or {}).get("run")
    chosen = baselines.BUILT if run is None else run
    out = [b for b in baselines.BUILT if b in chosen]
    if dataset is not None and set(out) & set(baselines.TAILS) and not tails_apply(config, dataset)[0]:
        out = [b for b in out if b not in baselines.TAILS]
    return out


# Style pairs the tail baselines are made for: they add fixed_target's sentence to the whole source as a verdict
# ("..., but the food is great ."), a test of a style score on sentiment. On other styles the added sentence is
# no verdict, and on a masked corpus it may be a bare placeholder ("but to -LOCATION- , i .").
SENTIMENT_PAIRS = ({"negative", "positive"}, {"neg", "pos"})


def tails_apply(config: dict, dataset: str) -> tuple[bool, str]:
    """(whether the tail baselines run on a dataset, why): datasets.<name>.tail_baselines true | false, or auto
    (the default): on for a negative / positive sentiment pair of styles, off otherwise."""
    ds = config["datasets"][dataset]
    setting = ds.get("tail_baselines", schema_default("datasets", dataset, "tail_baselines"))
    if isinstance(setting, bool):
        return setting, f"datasets.{dataset}.tail_baselines: {str(setting).lower()}"
    pair = {str(s).lower() for s in ds["styles"]} in SENTIMENT_PAIRS
    why = (
        f"its styles {list(ds['styles'])} are a negative / positive sentiment pair"
        if pair
        else f"its styles {list(ds['styles'])} are not a negative / positive sentiment pair"
    )
    return pair, f"{why} (datasets.{dataset}.tail_baselines: auto)"


def skipped_tails(config: dict, datasets) -> list[str]:
    """One line per run dataset whose tail baselines are asked for (baselines.run) but do not apply (tails_apply):
    the run's summary says so."""
    asked = [b for b in baseline_systems(config) if b in baselines.TAILS]
    out = []
    for ds in datasets:
        on, why = tails_apply(config, ds)
        if asked and not on:
            out.append(
                f"{ds}: the tail baselines ({', '.join(asked)}) are not run: {why}; set "
                f"datasets.{ds}.tail_baselines: true to run them"
            )
    return out


def baseline_seed(config: dict) -> int:
    return int((config.get("baselines") or {}).get("seed", default("baselines", "seed")))


def external_systems(config: dict, dataset: str) -> list[str]:
    """Every system of a dataset that is not ours: its configured systems, `source` (the untransferred
    input, also the copy baseline), `reference` (the human references, when there are some and no system is
    called `human`) and the sanity baselines (baseline_systems)."""
    systems = list(config["datasets"][dataset].get("systems") or {})
    systems.append("source")
    if "human" not in systems and has_references(config, dataset):
        systems.append("reference")
    return systems + baseline_systems(config, dataset)


def calibration_baselines(config: dict) -> list[str]:
    """The baselines the calibrated GM reads (tst.metrics.gm.CALIBRATION_BASELINES) when the config runs
    random_target or fixed_target (the copy is always there), else []."""
    from tst.metrics.gm import CALIBRATION_BASELINES, CALIBRATION_NEEDS_ONE_OF

    run = set(baseline_systems(config)) | {baselines.COPY}
    if not any(s in run for s in CALIBRATION_NEEDS_ONE_OF):
        return []
    return [s for s in CALIBRATION_BASELINES if s in run]


def last_test_checkpoint(config: dict, system: str) -> str:
    """The checkpoint of a system's test outputs that the validity checks read: ours, the last test checkpoint;
    an external system, its final outputs."""
    return test_checkpoints(config)[-1] if names.parse_system(system) else names.FINAL


def validity_systems(config: dict, dataset: str) -> list[str]:
    """Honest systems whose word-order-damaged copies the validity checks score: the honest external ones
    and ours (at their last test checkpoint)."""
    ours = [names.system_name(v, s) for v, s in our_models(config, dataset)]
    return honest_systems(config, dataset) + ours


def honest_systems(config: dict, dataset: str) -> list[str]:
    """The external systems that are real transfer systems or human rewrites: not the copy and not a sanity
    baseline (what a valid metric must rank above every baseline, with our trained models)."""
    return [s for s in external_systems(config, dataset) if s not in baselines.BASELINES]


# The keys of a system's spec that tst.data.systems.import_system reads: its rule's params (paper, source,
# url and download are metadata: editing them reimports nothing).
SYSTEM_IMPORT_KEYS = ("file", "format", "tokenize", "sources")


def system_import_spec(config: dict, dataset: str, system: str) -> dict:
    spec = config["datasets"][dataset]["systems"][system]
    return {k: spec[k] for k in SYSTEM_IMPORT_KEYS if k in spec}


def naturalness_source(config: dict, system: str) -> tuple[str, str]:
    """(split, checkpoint) of the outputs a system's naturalness classifier learns from: by default `dev` for
    our models (so test outputs stay unseen) at their last checkpoint, and `test` `final` for external
    systems (the only outputs they publish; the classifier is then cross-fitted)."""
    nat = (config.get("evaluators") or {}).get("naturalness") or {}
    if names.parse_system(system):
        return nat.get("split") or "dev", nat.get("checkpoint") or checkpoints(config)[-1]
    return nat.get("split") or "test", names.FINAL


def naturalness_settings(config: dict, kind: str) -> dict:
    """Settings of one naturalness classifier kind (lr | nn): the shared keys plus the kind's own, over
    config.yaml's (tst.defaults.evaluator_block)."""
    return evaluator_block(config.get("evaluators"), f"naturalness.{kind}")


# Li et al. 2018's rated systems (output-file suffixes)
LI_SYSTEMS = ["fader", "human", "label", "mit", "multi_decoder", "orgin", "retrieval", "rule_base"]


def human_systems(config: dict, dataset: str) -> list[str]:
    return list(config["datasets"][dataset].get("human_systems") or LI_SYSTEMS)


def lookup_tables(config: dict) -> dict:
    """Per-wildcard settings as nested dicts, for Snakemake's lookup(dpath=..., within=...):
    evaluators/{dataset}/{cnn|lstm|minilm|lm|acceptability}, embeddings/{glove|word2vec|word2vec_masked}, naturalness/{lr|nn},
    variants/{name} (resolved: model and every lambda), score/{dataset} (metric options), vocab/{dataset}
    (min_count), corpus/{dataset} (what preparation reads), references/{dataset} (what preparing the references
    reads)."""
    ev = config.get("evaluators") or {}
    return {
        "evaluators": {
            ds: {s: evaluator_settings(config, s, ds) for s in DATASET_EVALUATOR_KEYS}
            for ds in config.get("datasets") or {}
        },
        "embeddings": {
            # glove's sha256 checks the download only: the vectors built from the zip do not depend on it
            emb: {
                k: v
                for k, v in (ev.get("glove" if emb == "glove" else "word2vec") or {}).items()
                if k != "sha256"
            }
            for emb in names.EMBEDDINGS
        },
        "naturalness": {kind: naturalness_settings(config, kind) for kind in names.NATURALNESS_KINDS},
        "variants": {
            n: variants.resolve(v) for n, v in ((config.get("transfer") or {}).get("variants") or {}).items()
        },
        "score": {ds: score_options(config, ds) for ds in config.get("datasets") or {}},
        "vocab": {ds: {"min_count": vocab_min_count(config, ds)} for ds in config.get("datasets") or {}},
        "corpus": {ds: corpus_settings(config, ds) for ds in config.get("datasets") or {}},
        "references": {
            ds: corpus_settings(config, ds, REFERENCE_KEYS) for ds in config.get("datasets") or {}
        },
    }


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
    "min_sentences",
    "paraphrase",
)
# The keys preparing its references reads (tst.data.references.prepare_references, rule prepare_references): the
# references block is no param of the corpus' preparation, so that a changed reference file or its sha256
# reruns the references and what reads them, never an evaluator.
REFERENCE_KEYS = ("styles", "source", "normalize", "ner", "references")


def corpus_settings(config: dict, dataset: str, keys: tuple = CORPUS_KEYS) -> dict:
    """The part of datasets.<dataset> that its corpus preparation and system import read (CORPUS_KEYS; with
    keys=REFERENCE_KEYS, what preparing its references reads)."""
    block = (config.get("datasets") or {}).get(dataset) or {}
    out = {k: block[k] for k in keys if k in block}
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
# tokens to its first ones, and count it (tst.scoring.read.Reader): bounded memory, as one 1 MB line otherwise
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
    return (
        SCORE_MAX_WORDS_FACTOR
        * length_limits(((config.get("datasets") or {}).get(dataset) or {}).get("length"))[1]
    )


def bootstrap_options(config: dict | None = None) -> dict:
    """The paired bootstrap's settings (n_resamples, seed): score.bootstrap over tst.bootstrap.DEFAULTS."""
    from tst.bootstrap import resolve

    return resolve(((config or {}).get("score") or {}).get("bootstrap"))
