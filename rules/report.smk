# Reports: the papers' tables and figures of one dataset, pure functions of its score files.
# `snakemake --report report.html` gives one browsable page: each table once (its html, which links its csv,
# md and tex), each plot once (png, svg a toggle). params.about: what ran, printed by report/workflow.rst.
from tst.report import landing


rule report_tables:
    input:
        unpack(report_human),
        unpack(
            lambda w: rule_inputs.validity_report_files(
                config, w.dataset, ["checks", "calibration", "rated", "originals"]
            )
        ),
        scores=report_scores,
        tsvs=report_score_tsvs,
        classifiers=[layout.evaluators(file=f) for f in names.CLASSIFIERS.values()],
    output:
        report(
            layout.warnings(),
            caption="../report/warnings.rst",
            category="{dataset}",
            subcategory="Warnings",
            labels={"page": "warnings"},
        ),
        [
            report(
                layout.table(name=name, ext="html"),
                caption=f"../report/{name}.rst",
                category="{dataset}",
                subcategory="Tables",
                labels={"table": name, "shows": TITLES[name]},
            )
            for name in TABLES
        ],
        [
            layout.table(name=name, ext=ext)
            for name in TABLES
            for ext in TABLE_FORMATS
            if ext != "html"
        ],
    log:
        "logs/report_tables/{dataset}.log",
    conda:
        env("report")
    params:
        settings=config.get("report") or {},
        gm_t=config["score"]["gm_t"],
        variants=TRANSFER.get("run_variants") or [],
        warmups=stages.cycle_warmups(config),
        honest=lambda w: stages.honest_systems(config, w.dataset),
        bootstrap=stages.bootstrap_options(config),
        about=lambda w: landing.about(config, w.dataset),
        ours=lambda w: landing.has_models(config, w.dataset),
        styles=lambda w: config["datasets"][w.dataset]["styles"],
        code=code("report_tables.py"),
        tst_version=signature.version(),  # in every table's signature footnote
    script:
        "../scripts/report_tables.py"


rule report_plots:
    input:
        unpack(
            lambda w: rule_inputs.validity_report_files(
                config, w.dataset, ["calibration"]
            )
        ),
        scores=report_scores,
    output:
        [
            report(
                layout.plot(name=name, ext=ext),
                caption=f"../report/{name}.rst",
                category="{dataset}",
                subcategory="Plots",
                labels={"plot": name, "shows": TITLES[name], "format": ext},
            )
            for name in PLOTS
            for ext in PLOT_FORMATS
        ],
    log:
        "logs/report_plots/{dataset}.log",
    conda:
        env("report")
    params:
        settings=config.get("report") or {},
        gm_t=config["score"]["gm_t"],
        variants=TRANSFER.get("run_variants") or [],
        ours=lambda w: landing.has_models(config, w.dataset),
        code=code("report_plots.py"),
    script:
        "../scripts/report_plots.py"
