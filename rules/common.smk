# Config checks, wildcard constraints, path patterns, input functions and targets. Every decision is made in
# tst/; rules pass `code` (tst.codehash) so a job reruns when its inputs, params or code change, and only then.
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

from tst import rule_inputs, stages
from tst import afterrun, gpus, joblock, layout, names, signature, variants
from tst.codehash import code_hash
from tst.config import check_config, check_data, without_extras
from tst.data.downloads import check_reachable, fetch_extras
from tst.data.corpus import corpus_outputs
from tst.data.sources import data_file, fetch_url, sha256_for
from tst.data.sources import resolve_data_dir, resolve_mirror
from tst.layout import SCORED_SPLITS, STYLES
from tst.metrics.registry import IDF, STYLE_LEXICON
from tst.report.contents import PLOT_FORMATS, PLOTS, TABLE_FORMATS, TABLES, TITLES
from tst.resources import check_fits_node, job_resources, node_size

validate(config, schema="../schemas/config.schema.yaml")
DATA_DIR = str(resolve_data_dir(config.get("data_dir")).resolve())
check_config(config, DATA_DIR)
# Every file a run dataset reads can be had, or the run stops here naming it; in a real run's main process the
# optional extras (released systems, human ratings) are fetched now, and one that cannot be is left out.
# Where downloads come from (data_mirror / $TST_MIRROR, else the public URLs); the bytes are checked by sha256.
MIRROR = resolve_mirror(config.get("data_mirror"))
_data = check_data(config, DATA_DIR, job=not workflow.is_main_process)
if workflow.is_main_process and not workflow.output_settings.dryrun:
    _failed = fetch_extras(_data.pending, config["datasets"], DATA_DIR, MIRROR)
    _data = check_data(config, DATA_DIR, failed=_failed)
for _warning in _data.warnings if workflow.is_main_process else []:
    logger.warning(_warning)
config.update(without_extras(config, _data.left_out))  # in place: the extras left out

DATASETS = list(config["run"])
TRANSFER = config["transfer"]
TABLE = stages.lookup_tables(config)
CHECKPOINTS = stages.checkpoints(config)
OUR_RUNS = stages.our_runs(config)  # (split, checkpoint) scored per model of ours
EXTERNAL_RUNS = [("test", names.FINAL)]
# threads, gpu, mem_mb, runtime of one job; in a cluster run (--jobs) each must fit a node
EV_JOB, TRANSFER_JOB = (job_resources(config, s) for s in ("evaluators", "transfer"))
if workflow.is_main_process and workflow.nodes:
    check_fits_node(config, node_size(workflow.global_resources))

# missing data files -> their public URL; missing system files made from a released original -> (original, spec)
DOWNLOADS = rule_inputs.downloads(config, DATA_DIR)
EXTRACTS = rule_inputs.extracts(config, DATA_DIR)
CORPUS_FILES = corpus_outputs({"styles": STYLES})  # rule prepare_data's


wildcard_constraints:
    dataset=names.alternatives(config["datasets"]),
    variant=names.alternatives(TRANSFER.get("variants") or {}),
    system=names.alternatives(
        {s for d in DATASETS for s in stages.external_systems(config, d)}
    ),
    split=layout.CONSTRAINTS["split"],
    style=layout.CONSTRAINTS["style"],
    seed=layout.CONSTRAINTS["seed"],


def code(script):
    return code_hash(Path(workflow.basedir) / "scripts" / script)


def env(name):
    return f"../envs/{name}.yaml"


def per_style(path, **fill):
    """One path per style of a tst.layout function (other fields from `fill`, the rest left wildcards)."""
    return [path(style=s, **fill) for s in STYLES]


def words(*splits):
    """Word-level text of splits, both styles (what metrics, lexicons and parses read: the text before BPE)."""
    return [layout.text(split=sp, style=s, raw=True) for sp in splits for s in STYLES]


# ---- data ----
def corpus_inputs(wildcards):
    return rule_inputs.corpus_paths(config, wildcards.dataset, DATA_DIR)


def system_file(w):
    ds, style = w.dataset, int(w.style)
    return rule_inputs.system_inputs(config, ds, w.system, style, DATA_DIR)


def download_url(wildcards):
    """Where a missing data file is fetched from: its public URL (tst.rule_inputs.downloads), or the mirror."""
    rel = wildcards.datapath
    return fetch_url(DOWNLOADS[rel], rel, MIRROR)


def download_sha256(wildcards):
    return sha256_for(config["datasets"], wildcards.datapath)


def extract_original(wildcards):
    return data_file(DATA_DIR, EXTRACTS[wildcards.datapath][0])


def configured_systems():
    return names.alternatives(
        {s for d in config["datasets"].values() for s in d.get("systems") or {}}
    )


# ---- evaluators ----
def torch_evaluator_inputs(wildcards):
    """Model-unit text (BPE pieces when enabled) for the classifiers and LMs; a style LM reads one style (and
    may start from the joint LM)."""
    lm = wildcards.get("lm", "joint")
    styles = STYLES if lm == "joint" else [lm[-1]]
    ds = wildcards.dataset
    inputs = {sp: [layout.text(ds, sp, s) for s in styles] for sp in ("train", "dev")}
    inputs["vocab"] = layout.data(ds, layout.VOCAB)
    if (config["evaluators"].get("content_mask") or {}).get("enabled"):
        inputs["content"] = layout.evaluators(ds, layout.CONTENT_WORDS)
    inputs |= rule_inputs.sst2_input(config, wildcards, DATA_DIR)  # SST-2's labels
    init = rule_inputs.lm_init(config, ds, lm)  # a style LM tuned from the joint LM
    if init:
        inputs["init"] = init
    return inputs


def content_mask_settings():
    """What selects the content words (whether evaluators mask them is not: the file is the same)."""
    return {
        k: v
        for k, v in (config["evaluators"].get("content_mask") or {}).items()
        if k != "enabled"
    }


def embeddings_lexicon(wildcards):
    lexicon = layout.evaluators(wildcards.dataset, STYLE_LEXICON)
    return lexicon if wildcards.emb == "word2vec_masked" else []


def naturalness_outputs(wildcards):
    """A system's inputs and outputs: the naturalness classifier's two classes."""
    return rule_inputs.naturalness_files(config, wildcards.dataset, wildcards.system)


def naturalness_cross_fit(wildcards):
    """Outputs that are also the ones scored (test) are cross-fitted."""
    return stages.naturalness_source(config, wildcards.system)[0] == "test"


def naturalness_gpu(wildcards):
    return EV_JOB["gpu"] if wildcards.kind == "nn" else 0


# ---- transfer ----
def transfer_inputs(wildcards):
    """Corpus, vocabulary and dev entities, plus what the variant's loss terms need (tst.variants.needs)."""
    need = variants.needs(TABLE["variants"][wildcards.variant])
    ds = wildcards.dataset
    files = {
        "train": lambda style: layout.text(ds, "train", style),
        "dev": lambda style: layout.text(ds, "dev", style),
        "dev_entities": lambda style: layout.entities(ds, "dev", style),
        "paraphrase": lambda style: layout.paraphrase(ds, style),
        "lm": lambda style: layout.evaluators(
            ds, names.LANGUAGE_MODELS[f"style{style}"]
        ),
        "attributes": lambda style: layout.attribute_lists(ds, "train", style),
    }
    keys = ["train", "dev", "dev_entities", *need]
    inputs = {k: per_style(files[k]) for k in keys}
    inputs["vocab"] = layout.data(ds, layout.VOCAB)
    return inputs


# ---- score ----
def score_inputs(wildcards):
    """A score job's inputs (tst.rule_inputs.score_inputs): an external system's test run, or our model's runs."""
    system = wildcards.get("system")
    ours = None if system else names.system_name(wildcards.variant, wildcards.seed)
    runs = EXTERNAL_RUNS if system else OUR_RUNS
    return rule_inputs.score_inputs(
        config, wildcards.dataset, system or ours, runs, bool(system)
    )


def bpe_model(wildcards):
    """The BPE model of a dataset with BPE (BPE_DATASETS, rules/data.smk), which scoring reads."""
    ds = wildcards.dataset
    return layout.data(ds, layout.BPE_MODEL) if ds in BPE_DATASETS else []


# ---- human ratings (datasets with `human_ratings`) ----
def ratings_csv(wildcards):
    return data_file(DATA_DIR, config["datasets"][wildcards.dataset]["human_ratings"])


def rated_outputs(wildcards):
    return rule_inputs.rated_outputs(config, wildcards.dataset, DATA_DIR)


def rated_scores(wildcards):
    systems = stages.human_systems(config, wildcards.dataset)
    return [
        layout.score(wildcards.dataset, s, *EXTERNAL_RUNS[0], "tsv") for s in systems
    ]


# ---- report ----
def report_runs(ds):
    return rule_inputs.report_runs(config, ds, OUR_RUNS, EXTERNAL_RUNS)


def report_scores(wildcards):
    return [
        layout.score(wildcards.dataset, *run) for run in report_runs(wildcards.dataset)
    ]


def report_score_tsvs(wildcards):
    """The per-sentence TSVs of the test-split score files of report_scores (the leaderboard resamples them)."""
    runs = report_runs(wildcards.dataset)
    return [layout.score(wildcards.dataset, *r, "tsv") for r in runs if r[1] == "test"]


def human_targets(dataset):
    files = (layout.CORRELATION, layout.AGGREGATE)
    ratings = config["datasets"][dataset].get("human_ratings")
    return [layout.human(dataset, f) for f in files] if ratings else []


def report_human(wildcards):
    return dict(zip(("correlations", "aggregate"), human_targets(wildcards.dataset)))


def all_targets():
    """Per dataset: data, evaluators, dev/test attribute lists, human analyses, tables, plots."""
    targets = []
    for ds in DATASETS:
        targets += [layout.data(ds, layout.DATA_REPORT), *human_targets(ds)]
        targets += [layout.evaluators(ds, f) for f in names.EVALUATOR_FILES]
        targets += [
            layout.attribute_lists(ds, sp, s) for sp in SCORED_SPLITS for s in STYLES
        ]
        targets += [layout.table(ds, t, x) for t in TABLES for x in TABLE_FORMATS]
        targets += [layout.plot(ds, p, x) for p in PLOTS for x in PLOT_FORMATS]
    return targets
