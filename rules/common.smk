# Config checks, wildcard constraints, path patterns, input functions and targets. Every decision is made in
# tst/; rules pass `code` (tst.codehash) so a job reruns when its inputs, params or code change, and only then.
from pathlib import Path

from snakemake.utils import validate

from tst import config as settings
from tst import names, variants
from tst.codehash import code_hash
from tst.data.prepare import expected_outputs
from tst.data.sources import data_file, resolve_data_dir
from tst.human.outputs import system_output_files
from tst.metrics.registry import evaluator_files
from tst.report.contents import PLOTS, TABLE_FORMATS, TABLES, TITLES
from tst.resources import check_fits_node, job_resources, node_size

validate(config, schema="../schemas/config.schema.yaml")
DATA_DIR = str(resolve_data_dir(config.get("data_dir")).resolve())
settings.check_config(config, DATA_DIR)

DATASETS = list(config["run"])
STYLES = ["0", "1"]
SPLITS = ["train", "dev", "test"]
TRANSFER = config["transfer"]
TABLE = settings.lookup_tables(config)
CHECKPOINTS = settings.checkpoints(config)
OUR_RUNS = settings.our_runs(config)  # (split, checkpoint) scored per model of ours
EXTERNAL_RUNS = [("test", names.FINAL)]
# threads, gpu, mem_mb, runtime of one job; in a cluster run (--jobs) each must fit a node
EV_JOB, TRANSFER_JOB = (job_resources(config, s) for s in ("evaluators", "transfer"))
if workflow.is_main_process and workflow.nodes:
    check_fits_node(config, node_size(workflow.global_resources))

DATA = "results/{dataset}/data"
EVALUATORS = "results/{dataset}/evaluators"
MODEL = "results/{dataset}/models/{variant}/seed{seed}"
SCORES = "results/{dataset}/scores"
DOWNLOADS = settings.downloads(config, DATA_DIR)  # missing corpus files -> their URL
DATA_FILES = expected_outputs({"styles": STYLES, "bpe": {"enabled": False}})


wildcard_constraints:
    dataset=names.alternatives(config["datasets"]),
    variant=names.alternatives(TRANSFER.get("variants") or {}),
    system=names.alternatives(
        {s for d in DATASETS for s in settings.external_systems(config, d)}
    ),
    split="train|dev|test",
    style="0|1",
    seed=r"\d+",


def code(script):
    return code_hash(Path(workflow.basedir) / "scripts" / script)


def env(name):
    return f"../envs/{name}.yaml"


def per_style(pattern, **fill):
    """One path per style of a pattern with a `{style}` field (other fields filled from `fill`)."""
    return [pattern.format(style=s, **fill) for s in STYLES]


def words(*splits):
    """Word-level text of splits, both styles (what metrics, lexicons and parses read: the text before BPE)."""
    return [f"{DATA}/{sp}.{s}.raw.txt" for sp in splits for s in STYLES]


# ---- data ----
def corpus_inputs(wildcards):
    return settings.corpus_paths(config, wildcards.dataset, DATA_DIR)


def system_file(wildcards):
    w = wildcards
    return settings.system_inputs(config, w.dataset, w.system, int(w.style), DATA_DIR)


def download_url(wildcards):
    """The public URL of a missing corpus file (tst.config.downloads)."""
    return DOWNLOADS[wildcards.datapath]


def configured_systems():
    return names.alternatives(
        {s for d in config["datasets"].values() for s in d.get("systems") or {}}
    )


# ---- evaluators ----
def torch_evaluator_inputs(wildcards):
    """Model-unit text (BPE pieces when enabled) for the classifiers and LMs; a style LM reads one style."""
    lm = wildcards.get("lm", "joint")
    styles = STYLES if lm == "joint" else [lm[-1]]
    data = DATA.format(dataset=wildcards.dataset)
    inputs = {sp: [f"{data}/{sp}.{s}.txt" for s in styles] for sp in ("train", "dev")}
    inputs["vocab"] = f"{data}/vocab.txt"
    if (config["evaluators"].get("content_mask") or {}).get("enabled"):
        inputs["content"] = f"results/{wildcards.dataset}/evaluators/content_words.json"
    return inputs


def content_mask_settings():
    """What selects the content words (whether evaluators mask them is not: the file is the same)."""
    return {
        k: v
        for k, v in (config["evaluators"].get("content_mask") or {}).items()
        if k != "enabled"
    }


def embeddings_lexicon(wildcards):
    lexicon = f"results/{wildcards.dataset}/evaluators/style_lexicon.json"
    return lexicon if wildcards.emb == "word2vec_masked" else []


def naturalness_outputs(wildcards):
    """A system's inputs and outputs: the naturalness classifier's two classes."""
    return settings.naturalness_files(config, wildcards.dataset, wildcards.system)


def naturalness_cross_fit(wildcards):
    """Outputs that are also the ones scored (test) are cross-fitted."""
    return settings.naturalness_source(config, wildcards.system)[0] == "test"


def naturalness_gpu(wildcards):
    return EV_JOB["gpu"] if wildcards.kind == "nn" else 0


# ---- transfer ----
def transfer_inputs(wildcards):
    """Corpus, vocabulary and dev entities, plus what the variant's loss terms need (tst.variants.needs)."""
    need = variants.needs(TABLE["variants"][wildcards.variant])
    files = {
        "train": f"{DATA}/train.{{style}}.txt",
        "dev": f"{DATA}/dev.{{style}}.txt",
        "dev_entities": f"{DATA}/dev.{{style}}.entities.jsonl",
        "paraphrase": f"{DATA}/paraphrase.{{style}}.tsv",
        "lm": f"{EVALUATORS}/lm_style{{style}}.pt",
        "attributes": "results/{dataset}/attributes/train.{style}.attributes.jsonl",
    }
    keys = ["train", "dev", "dev_entities", *need]
    inputs = {k: per_style(files[k], dataset=wildcards.dataset) for k in keys}
    inputs["vocab"] = f"{DATA}/vocab.txt".format(dataset=wildcards.dataset)
    return inputs


# ---- score ----
def score_inputs(wildcards):
    """Two files (style 0, 1) per run, in run order: outputs, sources, attribute lists (and for external
    systems the text the lists belong to); the evaluators the registry's metrics read; the system's
    naturalness classifiers; the human references."""
    ds, system = wildcards.dataset, wildcards.get("system")
    data, evaluators = DATA.format(dataset=ds), EVALUATORS.format(dataset=ds)
    if system is None:  # ours
        system = names.system_name(wildcards.variant, wildcards.seed)
        runs, folder = OUR_RUNS, f"{MODEL}/transfers".format(**wildcards)
        sources = [f"{data}/{sp}.{s}.raw.txt" for sp, _ in runs for s in STYLES]
    else:
        runs, folder = EXTERNAL_RUNS, f"results/{ds}/systems/{system}"
        sources = [
            f"{folder}/{sp}.{c}.sources.{s}.txt" for sp, c in runs for s in STYLES
        ]
    inputs = {
        "outputs": [f"{folder}/{sp}.{c}.{s}.txt" for sp, c in runs for s in STYLES],
        "sources": sources,
        "evaluators": [f"{evaluators}/{f}" for f in evaluator_files()],
        "naturalness": [
            f"{evaluators}/{names.naturalness_file(system, kind)}"
            for kind in config["score"].get("naturalness") or {}
        ],
    }
    if settings.has_references(config, ds):
        inputs["references"] = per_style(f"{DATA}/references.{{style}}.tsv", dataset=ds)
    if config["score"].get("attribute_hit", True):
        lists = "results/{dataset}/attributes/{sp}.{s}.attributes.jsonl"
        inputs["lists"] = [
            lists.format(dataset=ds, sp=sp, s=s) for sp, _ in runs for s in STYLES
        ]
        if (
            runs is EXTERNAL_RUNS
        ):  # lists are matched to external sources by the sentence text
            inputs["lists_text"] = [
                f"{data}/{sp}.{s}.raw.txt" for sp, _ in runs for s in STYLES
            ]
    return inputs


# ---- human ratings (datasets with `human_ratings`) ----
def ratings_csv(wildcards):
    return data_file(DATA_DIR, config["datasets"][wildcards.dataset]["human_ratings"])


def rated_outputs(wildcards):
    folder = settings.human_outputs_dir(config, wildcards.dataset, DATA_DIR)
    return system_output_files(folder)


def rated_scores(wildcards):
    systems = settings.human_systems(config, wildcards.dataset)
    return [f"results/{wildcards.dataset}/scores/{s}/test.final.tsv" for s in systems]


# ---- report ----
def report_scores(wildcards):
    ds = wildcards.dataset
    ours = [names.system_name(v, seed) for v, seed in settings.our_models(config, ds)]
    files = [f"{SCORES}/{s}/{sp}.{c}.json" for s in ours for sp, c in OUR_RUNS]
    files += [
        f"{SCORES}/{s}/test.final.json" for s in settings.external_systems(config, ds)
    ]
    return [f.format(dataset=ds) for f in files]


def report_score_tsvs(wildcards):
    """The per-sentence TSVs of the test-split score files of report_scores (the leaderboard resamples them)."""
    return [
        f[: -len(".json")] + ".tsv"
        for f in report_scores(wildcards)
        if Path(f).name.startswith("test.")
    ]


def human_targets(dataset):
    files = ("correlation.csv", "aggregate.json")
    ratings = config["datasets"][dataset].get("human_ratings")
    return [f"results/{dataset}/human/{f}" for f in files] if ratings else []


def report_human(wildcards):
    return dict(zip(("correlations", "aggregate"), human_targets(wildcards.dataset)))


def all_targets():
    """Per dataset: prepared data, evaluators, attribute lists, human-rating analyses, and the tables and
    plots, which pull in every model of ours and every score."""
    targets = []
    for ds in DATASETS:
        d = f"results/{ds}"
        targets += [f"{d}/data/report.json", *human_targets(ds)]
        targets += expand(f"{d}/evaluators/{{f}}", f=names.EVALUATOR_FILES)
        targets += expand(
            f"{d}/attributes/{{sp}}.{{s}}.attributes.jsonl", sp=SPLITS, s=STYLES
        )
        targets += expand(f"{d}/tables/{{t}}.{{x}}", t=TABLES, x=TABLE_FORMATS)
        targets += expand(f"{d}/plots/{{p}}.{{x}}", p=PLOTS, x=("png", "svg"))
    return targets
