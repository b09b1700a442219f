# Human judgments (Li et al. 2018 crowd ratings): GM thresholds / aggregates learned from preferences
# (Pang & Gimpel 2019 Sec. 3.3; Pang 2019 Sec. 4.1) and metric-vs-human correlations.
# Config: datasets.{name}.human_ratings (CSV path relative to the data dir; the rules exist only then),
# datasets.{name}.human_outputs (folder of sentiment.test.{0,1}.<system>, relative to the data dir;
# default: ../outputs beside the ratings folder), datasets.{name}.human_systems (external systems rated;
# names = output-file suffixes; default: the 8 Li et al. systems), datasets.{name}.human_aggregate
# (held_out, steps, lr, mlp_hidden, seed, exclude_systems).
from pathlib import Path

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
        args.append("--exclude-systems " + quoted(opts["exclude_systems"]))
    return " ".join(args)


def human_targets(dataset):
    """correlation.csv and aggregate.json of a dataset with ratings (empty list otherwise)."""
    if not dataset_config(dataset).get("human_ratings"):
        return []
    return [
        f"{RESULTS}/{dataset}/human/{name}"
        for name in ("correlation.csv", "aggregate.json")
    ]


rule human_correlation:
    input:
        ratings=human_ratings_csv,
        scores=lambda wildcards: list(human_score_tsvs(wildcards).values()),
    output:
        csv=f"{RESULTS}/{{dataset}}/human/correlation.csv",
        joined=f"{RESULTS}/{{dataset}}/human/ratings_with_metrics.tsv",
    log:
        f"{RESULTS}/{{dataset}}/logs/human_correlation.log",
    threads: 1
    params:
        outputs=human_outputs_dir,
        scores=lambda wildcards, input: human_scores_arg(wildcards, input),
    shell:
        "python {SCRIPTS:q}/human_correlation.py --ratings {input.ratings:q} --outputs {params.outputs:q}"
        " --scores {params.scores} --out {output.csv:q} --joined-out {output.joined:q} > {log:q} 2>&1"


rule learn_aggregate:
    input:
        ratings=human_ratings_csv,
        scores=lambda wildcards: list(human_score_tsvs(wildcards).values()),
    output:
        f"{RESULTS}/{{dataset}}/human/aggregate.json",
    log:
        f"{RESULTS}/{{dataset}}/logs/learn_aggregate.log",
    threads: 1
    params:
        outputs=human_outputs_dir,
        scores=lambda wildcards, input: human_scores_arg(wildcards, input),
        opts=human_aggregate_args,
    shell:
        "python {SCRIPTS:q}/learn_aggregate.py --ratings {input.ratings:q} --outputs {params.outputs:q}"
        " --scores {params.scores} {params.opts} --out {output:q} > {log:q} 2>&1"
