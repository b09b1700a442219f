# Reports (issue 6): the papers' tables and figures of one dataset, pure functions of its score files.
# Every output is a report() item: `snakemake --report report.html` gives one browsable page.


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
        "logs/report_tables/{dataset}.log",
    threads: 1
    params:
        out_dir=report_tables_dir,
        settings=report_settings,
        variants=report_variants_json,
        human=report_human_args,
    shell:
        "python {SCRIPTS:q}/report_tables.py --scores {input.scores:q} --out-dir {params.out_dir:q}"
        " --settings {params.settings:q} --variants {params.variants:q} {params.human} > {log:q} 2>&1"


rule report_plots:
    input:
        scores=report_scores,
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
        "logs/report_plots/{dataset}.log",
    threads: 1
    params:
        out_dir=report_plots_dir,
        settings=report_settings,
        variants=report_variants_json,
    shell:
        "python {SCRIPTS:q}/report_plots.py --scores {input.scores:q} --out-dir {params.out_dir:q}"
        " --settings {params.settings:q} --variants {params.variants:q} > {log:q} 2>&1"
