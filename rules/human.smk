# Human judgments (Li et al. 2018 crowd ratings; datasets with `human_ratings`): metric-vs-human
# correlations, and GM thresholds / aggregates learned from preferences (Pang & Gimpel 2019 §3.3;
# Pang 2019 §4.1). Config: datasets.{name}.human_ratings, human_outputs, human_systems, human_aggregate.


rule human_correlation:
    input:
        ratings=ratings_csv,
        outputs=rated_outputs,
        scores=rated_scores,
    output:
        csv=layout.human(file=layout.CORRELATION),
        joined=layout.human(file=layout.RATED),
    log:
        "logs/human_correlation/{dataset}.log",
    conda:
        env("human")
    params:
        systems=lookup(
            dpath="datasets/{dataset}/human_systems",
            within=config,
            default=stages.LI_SYSTEMS,
        ),
        code=code("human_correlation.py"),
    script:
        "../scripts/human_correlation.py"


rule learn_aggregate:
    input:
        ratings=ratings_csv,
        outputs=rated_outputs,
        scores=rated_scores,
    output:
        layout.human(file=layout.AGGREGATE),
    log:
        "logs/learn_aggregate/{dataset}.log",
    conda:
        env("human")
    params:
        systems=lookup(
            dpath="datasets/{dataset}/human_systems",
            within=config,
            default=stages.LI_SYSTEMS,
        ),
        settings=lookup(
            dpath="datasets/{dataset}/human_aggregate", within=config, default={}
        ),
        code=code("learn_aggregate.py"),
    script:
        "../scripts/learn_aggregate.py"
