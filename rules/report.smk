# Reports (issue 6): the papers' tables and figures of one dataset, pure functions of its score files.
# Every output is a report() item: `snakemake --report report.html` gives one browsable page.
import json

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


rule report_tables:
    input:
        unpack(report_inputs),
    output:
        [
            report(
                f"{RESULTS}/{{dataset}}/tables/{name}.{ext}",
                caption=f"../report/{name}.rst",
                category="{dataset}",
                subcategory="Tables",
                labels={"table": name, "format": ext},
            )
            for name in REPORT_TABLES
            for ext in ("csv", "md", "tex")
        ],
    log:
        f"{RESULTS}/{{dataset}}/logs/report_tables.log",
    threads: 1
    params:
        out_dir=lambda wildcards: f"{RESULTS}/{wildcards.dataset}/tables",
        settings=report_settings,
        variants=lambda wildcards: json.dumps(report_variants()),
        human=lambda wildcards, input: " ".join(
            f"--{key} {quoted(input[key])}"
            for key in ("correlations", "aggregate")
            if key in input.keys()
        ),
    shell:
        "python {SCRIPTS:q}/report_tables.py --scores {input.scores:q} --out-dir {params.out_dir:q}"
        " --settings {params.settings:q} --variants {params.variants:q} {params.human} > {log:q} 2>&1"


rule report_plots:
    input:
        scores=lambda wildcards: report_score_files(wildcards.dataset),
    output:
        [
            report(
                f"{RESULTS}/{{dataset}}/plots/{name}.{ext}",
                caption=f"../report/{name}.rst",
                category="{dataset}",
                subcategory="Plots",
                labels={"plot": name, "format": ext},
            )
            for name in REPORT_PLOTS
            for ext in ("png", "svg")
        ],
    log:
        f"{RESULTS}/{{dataset}}/logs/report_plots.log",
    threads: 1
    params:
        out_dir=lambda wildcards: f"{RESULTS}/{wildcards.dataset}/plots",
        settings=report_settings,
        variants=lambda wildcards: json.dumps(report_variants()),
    shell:
        "python {SCRIPTS:q}/report_plots.py --scores {input.scores:q} --out-dir {params.out_dir:q}"
        " --settings {params.settings:q} --variants {params.variants:q} > {log:q} 2>&1"
