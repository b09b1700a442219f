# Helpers shared by every .smk file: config validation, dataset lookups, target lists, and every input and
# params function of the workflow, grouped by stage (data, evaluators, attributes, transfer, score, human,
# report). The stage files hold only the rule definitions; everything else lives in the tst package.
import json
import os
import re
import shlex
import sys
from pathlib import Path

from snakemake.utils import validate

from tst.config import check_config
from tst.data.prepare import expected_outputs
from tst.data.sources import (
    corpus_files,
    missing_downloads,
    resolve_data_dir,
    style_path,
    url_for,
)

validate(config, schema="../schemas/config.schema.yaml")
check_config(config)

RESULTS = "results"
# shell commands run `python {SCRIPTS}/x.py`: the interpreter that runs snakemake comes first on PATH,
# so a venv works without activation, and scripts are found from any working directory.
os.environ["PATH"] = (
    os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
)
SCRIPTS = str(Path(workflow.basedir) / "scripts")
DATASETS = list(config["run"])
STYLES = ["0", "1"]
SPLITS = ["train", "dev", "test"]


wildcard_constraints:
    dataset="|".join(sorted(config["datasets"])) or "none",
    split="train|dev|test",
    style="0|1",
    seed=r"\d+",
    checkpoint=r"ep\d+\.\d|final",


def quoted(paths):
    """Paths joined for a shell command line, each quoted (a path never reaches a shell unquoted)."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    return " ".join(shlex.quote(str(p)) for p in paths)


def dataset_config(dataset):
    return config["datasets"][dataset]


def data_dir():
    """Where released corpora are read from (config data_dir, $TST_DATA_DIR, ../shared/data, resources/data)."""
    return str(resolve_data_dir(config.get("data_dir")))


def prepared(dataset, name):
    return f"{RESULTS}/{dataset}/data/{name}"


def word_level(dataset, split, style):
    """Word-level text of a split/style, what metrics, lexicons and parses read: raw.txt for BPE datasets
    (the text before BPE), the model-unit .txt otherwise (the two are identical without BPE).
    """
    bpe = dataset_config(dataset).get("bpe", {}).get("enabled", False)
    return prepared(
        dataset, f"{split}.{style}.raw.txt" if bpe else f"{split}.{style}.txt"
    )


# systems every dataset gets without training: the untransferred input, and the human references when the
# config declares no `human` system of its own (untransferred_system and reference_system in data.smk)
DERIVED_SYSTEMS = ["source", "reference"]


def has_references(dataset):
    """Human rewrites of the test set exist: configured reference files, or the demo corpus's own."""
    cfg = dataset_config(dataset)
    return bool(cfg.get("references")) or cfg["source"]["kind"] == "demo"


def dataset_systems(dataset):
    """Every system of a dataset that is not ours: configured external ones plus the derived ones."""
    cfg = dataset_config(dataset)
    systems = list(cfg.get("systems") or {})
    systems.append("source")
    if "human" not in systems and has_references(dataset):
        systems.append("reference")
    return systems


def all_targets():
    """Everything the main job builds, per dataset: prepared data, attribute lists, evaluators, trained
    models and their transfers, human-rating analyses, and the tables and plots (which pull in every score).
    """
    targets = []
    for ds in DATASETS:
        targets.append(prepared(ds, "report.json"))
        targets += attribute_targets(ds)
        targets += evaluator_targets(ds)
        targets += transfer_targets(ds)
        targets += human_targets(ds)
        targets += report_targets(ds)
    return targets


# ---- data: released corpora / demo corpus -> results/{dataset}/data/, external system outputs ----

# the files every dataset gets (bpe.model, BPE datasets only, is written beside them but not declared)
DATA_FILES = expected_outputs({"styles": ["0", "1"], "bpe": {"enabled": False}})


def data_corpus_inputs(wildcards):
    """Released files prepare_data reads (none for the generated demo corpus)."""
    cfg = dataset_config(wildcards.dataset)
    if cfg["source"]["kind"] == "demo":
        return []
    return [os.path.join(data_dir(), f) for f in corpus_files(cfg)]


def data_system_file(wildcards):
    cfg = dataset_config(wildcards.dataset)
    return os.path.join(
        data_dir(),
        style_path(
            cfg["systems"][wildcards.system]["file"],
            int(wildcards.style),
            cfg["styles"],
        ),
    )


def data_missing_regex():
    """Only files that are missing and have a URL can be downloaded; "(?!)" matches nothing."""
    missing = missing_downloads(config["datasets"], data_dir())
    return "|".join(re.escape(p) for p in missing) or "(?!)"


def data_system_names(dataset):
    return list(dataset_config(dataset).get("systems") or {})


def data_dataset_name(wildcards):
    return wildcards.dataset


def data_dataset_config(wildcards):
    return dataset_config(wildcards.dataset)


def data_out_dir(wildcards):
    return f"{RESULTS}/{wildcards.dataset}/data"


def data_system_name(wildcards):
    return wildcards.system


def data_style_index(wildcards):
    return int(wildcards.style)


def data_system_spec(wildcards):
    return dataset_config(wildcards.dataset)["systems"][wildcards.system]


def data_url(wildcards):
    return url_for(config["datasets"], wildcards.datapath)


# ---- evaluators: style classifiers, LMs, embeddings, idf, lexicon, naturalness -> results/{dataset}/evaluators/ ----


def ev_config():
    return config.get("evaluators") or {}


def ev_section(name):
    return dict(ev_config().get(name) or {})


def ev_dir(dataset):
    return f"{RESULTS}/{dataset}/evaluators"


def ev_resource(key, default):
    return (ev_config().get("resources") or {}).get(key, default)


def ev_content_mask():
    return bool((ev_config().get("content_mask") or {}).get("enabled", False))


def ev_torch_config(section, dataset):
    """Model + training settings of a torch evaluator; vocabulary min_count defaults to the dataset's."""
    cfg = {
        "min_count": dataset_config(dataset).get("vocab", {}).get("min_count", 1),
        **ev_section(section),
    }
    if ev_config().get("device"):
        cfg["device"] = ev_config()["device"]
    return json.dumps(cfg)


def ev_cnn_config(wildcards):
    return ev_torch_config("cnn", wildcards.dataset)


def ev_lstm_config(wildcards):
    return ev_torch_config("lstm", wildcards.dataset)


def ev_lm_config(wildcards):
    return ev_torch_config("lm", wildcards.dataset)


def ev_torch_inputs(wildcards):
    ds = wildcards.dataset
    inputs = {
        "train": [prepared(ds, f"train.{s}.txt") for s in STYLES],
        "dev": [prepared(ds, f"dev.{s}.txt") for s in STYLES],
        "vocab": prepared(ds, "vocab.txt"),
    }
    if ev_content_mask():
        inputs["content"] = f"{ev_dir(ds)}/content_words.json"
    return inputs


def ev_lm_inputs(wildcards):
    inputs = ev_torch_inputs(wildcards)
    if wildcards.lm != "joint":  # style0 / style1: that style's corpus only
        s = wildcards.lm[-1]
        inputs["train"] = [prepared(wildcards.dataset, f"train.{s}.txt")]
        inputs["dev"] = [prepared(wildcards.dataset, f"dev.{s}.txt")]
    return inputs


def ev_content_arg(wildcards, input):
    return (
        f"--content-words {quoted(input.content)}" if "content" in input.keys() else ""
    )


def ev_train_words(wildcards):
    """Word-level training text of both styles (idf, style lexicon, naturalness, embeddings)."""
    return [word_level(wildcards.dataset, "train", s) for s in STYLES]


def ev_extra_words(wildcards):
    """Word-level dev and test text of both styles (extra embedding training text)."""
    return [
        word_level(wildcards.dataset, sp, s) for sp in ("dev", "test") for s in STYLES
    ]


def ev_embeddings_lexicon(wildcards):
    """The style lexicon whose words word2vec_masked masks (no input for the other embeddings)."""
    return (
        f"{ev_dir(wildcards.dataset)}/style_lexicon.json"
        if wildcards.emb == "word2vec_masked"
        else []
    )


def ev_embeddings_config(wildcards):
    return json.dumps(ev_section("glove" if wildcards.emb == "glove" else "word2vec"))


def ev_lexicon_arg(wildcards, input):
    return f"--lexicon {quoted(input.lexicon)}" if input.lexicon else ""


def ev_style_lexicon_config(wildcards):
    return json.dumps(ev_section("style_lexicon"))


def ev_content_mask_config(wildcards):
    return json.dumps(
        {k: v for k, v in ev_section("content_mask").items() if k != "enabled"}
    )


def ev_naturalness_outputs(wildcards):
    """The outputs the classifier learns from: config evaluators.naturalness.split, by default `dev` for
    our models (so test outputs stay unseen) at naturalness.checkpoint (default: their last half epoch), and
    `test` at `final` for external systems (the only outputs they publish).
    """
    nat, ds = ev_section("naturalness"), wildcards.dataset
    m = re.fullmatch(r"(.+)\.seed(\d+)", wildcards.system)
    split = nat.get("split") or ("dev" if m else "test")
    if m:
        ckpt = nat.get("checkpoint") or transfer_half_epochs()[-1]
        d = f"{RESULTS}/{ds}/models/{m.group(1)}/seed{m.group(2)}/transfers"
    else:
        ckpt, d = "final", f"{RESULTS}/{ds}/systems/{wildcards.system}"
    return [f"{d}/{split}.{ckpt}.{s}.txt" for s in STYLES]


def ev_naturalness_cross_fit(wildcards):
    """External systems publish test outputs only: the classifier trains on them and they are scored, so it
    is cross-fitted (each output judged by the half-classifier that did not see it)."""
    split = ev_naturalness_outputs(wildcards)[0].split("/")[-1].split(".")[0]
    return "--cross-fit" if split == "test" else ""


def ev_naturalness_config(wildcards):
    nat = ev_section("naturalness")
    cfg = {k: v for k, v in nat.items() if k not in ("lr", "nn", "split", "checkpoint")}
    cfg.update(nat.get(wildcards.kind) or {})
    if wildcards.kind == "nn" and ev_config().get("device"):
        cfg["device"] = ev_config()["device"]
    return json.dumps(cfg)


def ev_naturalness_gpu(wildcards):
    """A GPU for the neural naturalness classifier only."""
    return ev_resource("gpu", 1) if wildcards.kind == "nn" else 0


def evaluator_targets(dataset):
    """Every evaluator file of a dataset (naturalness classifiers are pulled in by the score rule)."""
    d = ev_dir(dataset)
    files = [
        "style_cnn.pt",
        "style_lstm.pt",
        "lm_joint.pt",
        "lm_style0.pt",
        "lm_style1.pt",
        "glove.kv",
        "word2vec.kv",
        "word2vec_masked.kv",
        "idf.json",
        "style_lexicon.json",
    ]
    return [f"{d}/{f}" for f in files]


# ---- attributes: attribute words of Yu et al. 2021 (§5.1) -> results/{dataset}/attributes/ ----


def attributes_text(wildcards):
    return word_level(wildcards.dataset, wildcards.split, wildcards.style)


def attributes_file(dataset, split, style, kind="attributes"):
    return f"{RESULTS}/{dataset}/attributes/{split}.{style}.{kind}.jsonl"


def attribute_targets(dataset, splits=SPLITS):
    """Every attributes.jsonl of a dataset (for `rule all` or the transfer-model rules)."""
    return [attributes_file(dataset, sp, st) for sp in splits for st in STYLES]


def attributes_nlp(wildcards):
    return json.dumps(config.get("nlp", {}))


def attributes_options(wildcards):
    return json.dumps(config.get("attributes", {}))


# ---- transfer: transfer models per dataset x variant x seed -> results/{dataset}/models/ ----


def transfer_config():
    return config.get("transfer", {})


def transfer_variant(variant):
    return transfer_config()["variants"][variant]


def transfer_train_config():
    """The `transfer` section minus the workflow-only keys: what tst.train.trainer.train reads."""
    skip = {"variants", "run_variants", "seeds", "test_checkpoints", "resources"}
    return {k: v for k, v in transfer_config().items() if k not in skip}


def transfer_epochs():
    return int(transfer_config().get("epochs", 20))


def transfer_half_epochs():
    """Checkpoint labels ep0.5 ... ep{epochs}.0 (one per half epoch)."""
    return [f"ep{k / 2:.1f}" for k in range(1, 2 * transfer_epochs() + 1)]


def transfer_dir(dataset, variant, seed):
    return f"{RESULTS}/{dataset}/models/{variant}/seed{seed}"


# the same folder as a pattern with the rule's wildcards
TRANSFER_DIR = f"{RESULTS}/{{dataset}}/models/{{variant}}/seed{{seed}}"


def transfer_last_checkpoint():
    return f"checkpoints/{transfer_half_epochs()[-1]}.pt"


def transfer_ner(dataset):
    return dataset_config(dataset).get("ner", {}).get("enabled", False)


def transfer_inputs(wildcards):
    ds, lam = wildcards.dataset, transfer_variant(wildcards.variant)
    inputs = {
        "train": [prepared(ds, f"train.{s}.txt") for s in STYLES],
        "dev": [prepared(ds, f"dev.{s}.txt") for s in STYLES],
        "vocab": prepared(ds, "vocab.txt"),
    }
    if lam.get("lambda_para", 0) > 0:
        inputs["para"] = [prepared(ds, f"paraphrase.{s}.tsv") for s in STYLES]
    if lam.get("lambda_lm", 0) > 0:
        inputs["lm"] = [f"{RESULTS}/{ds}/evaluators/lm_style{s}.pt" for s in STYLES]
    if lam.get("lambda_attr", 0) > 0:
        inputs["attributes"] = [
            f"{RESULTS}/{ds}/attributes/train.{s}.attributes.jsonl" for s in STYLES
        ]
    if transfer_ner(ds):
        inputs["entities"] = [prepared(ds, f"dev.{s}.entities.jsonl") for s in STYLES]
    return inputs


def transfer_args(wildcards, input):
    """Optional command-line arguments of scripts/train_transfer.py."""
    args = []
    if "para" in input.keys():
        args.append(f"--paraphrase {quoted(input.para)}")
    if "lm" in input.keys():
        args.append(f"--lm {quoted(input.lm)}")
    if "entities" in input.keys():
        args.append(f"--dev-entities {quoted(input.entities)}")
    if "attributes" in input.keys():
        args.append(f"--attributes {quoted(input.attributes)}")
    return " ".join(args)


def transfer_test_checkpoints():
    """Checkpoints whose test transfers are written (config transfer.test_checkpoints; default: every half
    epoch, which the checkpoint selection of Tables 2/3 and the several checkpoints of Table 6 need).
    """
    return transfer_config().get("test_checkpoints") or transfer_half_epochs()


def transfer_targets(dataset):
    """Every dev and test transfer of the configured variants and seeds (for `rule all` / scoring)."""
    out = []
    for variant in transfer_config().get("run_variants", []):
        for seed in transfer_config().get("seeds", [1]):
            d = transfer_dir(dataset, variant, seed)
            out += [
                f"{d}/transfers/dev.{e}.{s}.txt"
                for e in transfer_half_epochs()
                for s in STYLES
            ]
            out += [
                f"{d}/transfers/test.{c}.{s}.txt"
                for c in transfer_test_checkpoints()
                for s in STYLES
            ]
    return out


def transfer_resource(key, default):
    return transfer_config().get("resources", {}).get(key, default)


def transfer_out_dir(wildcards):
    return transfer_dir(wildcards.dataset, wildcards.variant, wildcards.seed)


def transfer_config_json(wildcards):
    return json.dumps(transfer_train_config())


def transfer_variant_json(wildcards):
    return json.dumps(transfer_variant(wildcards.variant))


def transfer_min_count(wildcards):
    return dataset_config(wildcards.dataset).get("vocab", {}).get("min_count", 1)


def transfer_test_inputs(wildcards):
    ds = wildcards.dataset
    inputs = {
        "last": f"{transfer_out_dir(wildcards)}/{transfer_last_checkpoint()}",
        "test": [prepared(ds, f"test.{s}.txt") for s in STYLES],
    }
    if transfer_ner(ds):
        inputs["entities"] = [prepared(ds, f"test.{s}.entities.jsonl") for s in STYLES]
    return inputs


def transfer_checkpoint_file(wildcards):
    """The half-epoch checkpoint a test transfer decodes with (the trained run keeps every one)."""
    return f"{transfer_out_dir(wildcards)}/checkpoints/{wildcards.checkpoint}.pt"


def transfer_entities_arg(wildcards, input):
    return f"--entities {quoted(input.entities)}" if "entities" in input.keys() else ""


# ---- score: one JSON + TSV per system, split and checkpoint -> results/{dataset}/scores/ ----

SCORE_EVALUATORS = [
    "style_cnn.pt",
    "style_lstm.pt",
    "lm_joint.pt",
    "lm_style0.pt",
    "lm_style1.pt",
    "glove.kv",
    "idf.json",
    "style_lexicon.json",
    "word2vec.kv",
    "word2vec_masked.kv",
]


def score_config():
    return config.get("score") or {}


def score_ours(system):
    """`M0.seed1` -> ("M0", "1") for our models; None for an external system (`mit`, `human`)."""
    m = re.fullmatch(r"(.+)\.seed(\d+)", system)
    return (m.group(1), m.group(2)) if m else None


def score_outputs(wildcards):
    w, ours = wildcards, score_ours(wildcards.system)
    if ours:
        d = f"{RESULTS}/{w.dataset}/models/{ours[0]}/seed{ours[1]}/transfers"
    else:
        d = f"{RESULTS}/{w.dataset}/systems/{w.system}"
    return [f"{d}/{w.split}.{w.checkpoint}.{s}.txt" for s in STYLES]


def score_sources(wildcards):
    w = wildcards
    if score_ours(w.system):
        return [word_level(w.dataset, w.split, s) for s in STYLES]
    return [
        f"{RESULTS}/{w.dataset}/systems/{w.system}/{w.split}.{w.checkpoint}.sources.{s}.txt"
        for s in STYLES
    ]


def score_inputs(wildcards):
    ds = wildcards.dataset
    cfg = score_config()
    inputs = {
        "sources": score_sources(wildcards),
        "outputs": score_outputs(wildcards),
        "evaluators": [
            f"{RESULTS}/{ds}/evaluators/{f}"
            for f in cfg.get("evaluators", SCORE_EVALUATORS)
        ],
    }
    # e.g. {lr: json, nn: pt}: naturalness/{system}.{kind}.{ext}
    kinds = cfg.get("naturalness") or {}
    inputs["naturalness"] = [
        f"{RESULTS}/{ds}/evaluators/naturalness/{wildcards.system}.{k}.{ext}"
        for k, ext in kinds.items()
    ]
    if wildcards.split == "test" and has_references(ds):
        inputs["references"] = [prepared(ds, f"references.{s}.tsv") for s in STYLES]
    if cfg.get("attribute_hit", True):
        inputs["lists"] = [
            f"{RESULTS}/{ds}/attributes/{wildcards.split}.{s}.attributes.jsonl"
            for s in STYLES
        ]
        if not score_ours(
            wildcards.system
        ):  # external sources: lists matched on the sentence text
            inputs["lists_text"] = [word_level(ds, wildcards.split, s) for s in STYLES]
    return inputs


def score_args(wildcards, input):
    """Optional command-line arguments of scripts/score.py."""
    args = []
    for key in ("references", "lists", "lists_text"):
        if key in input.keys():
            args.append(f"--{key.replace('_', '-')} {quoted(input[key])}")
    return " ".join(args)


def score_dataset_dir(wildcards):
    return f"{RESULTS}/{wildcards.dataset}"


def score_options(wildcards):
    return json.dumps(
        {
            k: v
            for k, v in score_config().items()
            if k in ("cp_lexicon", "cp_seed", "gm_t")
        }
    )


# ---- human: Li et al. 2018 crowd ratings -> results/{dataset}/human/ (datasets with human_ratings) ----

LI_SYSTEMS = [
    "fader",
    "human",
    "label",
    "mit",
    "multi_decoder",
    "orgin",
    "retrieval",
    "rule_base",
]


def human_datasets():
    return [ds for ds in DATASETS if dataset_config(ds).get("human_ratings")]


def human_ratings_csv(wildcards):
    return str(Path(data_dir()) / dataset_config(wildcards.dataset)["human_ratings"])


def human_outputs_dir(wildcards):
    cfg = dataset_config(wildcards.dataset)
    if cfg.get("human_outputs"):
        return str(Path(data_dir()) / cfg["human_outputs"])
    return str(Path(human_ratings_csv(wildcards)).parent.parent / "outputs")


def human_systems(dataset):
    return list(dataset_config(dataset).get("human_systems", LI_SYSTEMS))


def human_score_tsvs(wildcards):
    return {
        s: f"{RESULTS}/{wildcards.dataset}/scores/{s}/test.final.tsv"
        for s in human_systems(wildcards.dataset)
    }


def human_score_files(wildcards):
    """The score TSVs of the rated systems, in human_systems order (human_scores_arg pairs them up)."""
    return list(human_score_tsvs(wildcards).values())


def human_scores_arg(wildcards, input):
    return quoted(
        f"{s}={p}" for s, p in zip(human_systems(wildcards.dataset), input.scores)
    )


def human_aggregate_args(wildcards):
    opts = dataset_config(wildcards.dataset).get("human_aggregate", {})
    args = [
        f"--held-out {opts.get('held_out', 0.3)}",
        f"--steps {opts.get('steps', 500)}",
        f"--lr {opts.get('lr', 0.5)}",
        f"--mlp-hidden {opts.get('mlp_hidden', 8)}",
        f"--seed {opts.get('seed', 0)}",
    ]
    if opts.get("exclude_systems"):
        args.append(f"--exclude-systems {quoted(opts['exclude_systems'])}")
    return " ".join(args)


def human_targets(dataset):
    """correlation.csv and aggregate.json of a dataset with ratings (empty list otherwise)."""
    if not dataset_config(dataset).get("human_ratings"):
        return []
    return [
        f"{RESULTS}/{dataset}/human/{name}"
        for name in ("correlation.csv", "aggregate.json")
    ]


# ---- report: the papers' tables and figures of one dataset -> results/{dataset}/tables/, plots/ ----
# (tests/test_report_workflow.py runs this group on its own: it may use only json, config, RESULTS,
# quoted, dataset_config and dataset_systems from outside it)

REPORT_TABLES = [
    "pang_gimpel",
    "bleu_ref",
    "metrics_all",
    "metric_vs_human",
    "aggregation",
]
REPORT_PLOTS = [
    "trajectories",
    "robust",
    "tradeoff_ts_cp",
    "tradeoff_sti_wmd",
    "tradeoff_nat_sti",
]


def report_checkpoints():
    """Half-epoch checkpoints of our models: ep0.5, ep1.0, ... up to config transfer.epochs."""
    epochs = float((config.get("transfer") or {}).get("epochs", 0))
    return [f"ep{k / 2:.1f}" for k in range(1, int(round(2 * epochs)) + 1)]


def report_variants():
    """Variants trained by the main job, in config order (fixes row order and colours)."""
    return list((config.get("transfer") or {}).get("run_variants") or [])


def report_score_files(dataset):
    """Every score JSON a dataset's report reads: our variants x seeds x half-epoch checkpoints (dev for the
    trajectories and the selection, test for the table rows) and the dataset's external systems (test, final).
    """
    transfer = config.get("transfer") or {}
    trained = dataset in transfer.get("datasets", [dataset])
    files = [
        f"{RESULTS}/{dataset}/scores/{variant}.seed{seed}/{split}.{checkpoint}.json"
        for variant in (report_variants() if trained else [])
        for seed in transfer.get("seeds") or []
        for checkpoint in report_checkpoints()
        for split in ("dev", "test")
    ]
    systems = dataset_systems(dataset)
    return files + [
        f"{RESULTS}/{dataset}/scores/{system}/test.final.json" for system in systems
    ]


def report_scores(wildcards):
    return report_score_files(wildcards.dataset)


def report_inputs(wildcards):
    """Score files, plus the human correlation and aggregation files when the dataset has human ratings."""
    inputs = {"scores": report_score_files(wildcards.dataset)}
    if dataset_config(wildcards.dataset).get("human_ratings"):
        inputs["correlations"] = f"{RESULTS}/{wildcards.dataset}/human/correlation.csv"
        inputs["aggregate"] = f"{RESULTS}/{wildcards.dataset}/human/aggregate.json"
    return inputs


def report_targets(dataset):
    """Tables and plots of a dataset for `rule all` (none when it has neither models nor systems)."""
    if not report_score_files(dataset):
        return []
    return [
        f"{RESULTS}/{dataset}/tables/{t}.{ext}"
        for t in REPORT_TABLES
        for ext in ("csv", "md", "tex")
    ] + [
        f"{RESULTS}/{dataset}/plots/{p}.{ext}"
        for p in REPORT_PLOTS
        for ext in ("png", "svg")
    ]


def report_settings(wildcards):
    return json.dumps(config.get("report") or {})


def report_variants_json(wildcards):
    return json.dumps(report_variants())


def report_tables_dir(wildcards):
    return f"{RESULTS}/{wildcards.dataset}/tables"


def report_plots_dir(wildcards):
    return f"{RESULTS}/{wildcards.dataset}/plots"


def report_human_args(wildcards, input):
    """--correlations/--aggregate of scripts/report_tables.py, for datasets with human ratings."""
    return " ".join(
        f"--{key} {quoted(input[key])}"
        for key in ("correlations", "aggregate")
        if key in input.keys()
    )
