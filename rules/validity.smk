# Validity (issue "scores that cannot be fooled"): checks of the metrics themselves on this dataset's evaluators.
# gm_calibration: the default GM's thresholds from the sanity baselines' scores (tst.metrics.gm.calibrate).
# validity_checks: content separation on the human references and word-order-damaged copies of every honest
# system (tst.validity). The validity table (report_tables) reads both.


rule gm_calibration:
    input:
        scores=lambda w: rule_inputs.validity_report_files(config, w.dataset)[
            "calibration_scores"
        ],
    output:
        thresholds=layout.calibration(),
    log:
        "logs/gm_calibration/{dataset}.log",
    localrule: True
    conda:
        env("report")
    params:
        systems=stages.calibration_baselines(config),
        code=code("gm_calibration.py"),
    script:
        "../scripts/gm_calibration.py"


rule validity_checks:
    input:
        unpack(lambda w: rule_inputs.validity_files(config, w.dataset)),
    output:
        checks=layout.validity(file=layout.CHECKS),
    log:
        "logs/validity_checks/{dataset}.log",
    benchmark:
        "benchmarks/validity_checks/{dataset}.tsv"
    priority: 5  # one ~3 min job the tables wait for: start it beside the score jobs, not after them
    conda:
        env("score")
    params:
        systems=lambda w: stages.validity_systems(config, w.dataset),
        evaluators_dir=lambda w: layout.evaluators(w.dataset),
        options=lookup(dpath="score/{dataset}", within=TABLE),
        seed=stages.baseline_seed(config),
        code=code("validity_checks.py"),
    script:
        "../scripts/validity_checks.py"
