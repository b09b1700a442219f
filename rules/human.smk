# Human judgments (Li et al. 2018 crowd ratings): GM thresholds / aggregates learned from preferences
# (Pang & Gimpel 2019 Sec. 3.3; Pang 2019 Sec. 4.1) and metric-vs-human correlations.
# Config: datasets.{name}.human_ratings (CSV path relative to the data dir; the rules exist only then),
# datasets.{name}.human_outputs (folder of sentiment.test.{0,1}.<system>, relative to the data dir;
# default: ../outputs beside the ratings folder), datasets.{name}.human_systems (external systems rated;
# names = output-file suffixes; default: the 8 Li et al. systems), datasets.{name}.human_aggregate
# (held_out, steps, lr, mlp_hidden, seed, exclude_systems).


rule human_correlation:
    input:
        ratings=human_ratings_csv,
        scores=human_score_files,
    output:
        csv=f"{RESULTS}/{{dataset}}/human/correlation.csv",
        joined=f"{RESULTS}/{{dataset}}/human/ratings_with_metrics.tsv",
    log:
        "logs/human_correlation/{dataset}.log",
    threads: 1
    params:
        outputs=human_outputs_dir,
        scores=human_scores_arg,
    shell:
        "python {SCRIPTS:q}/human_correlation.py --ratings {input.ratings:q} --outputs {params.outputs:q}"
        " --scores {params.scores} --out {output.csv:q} --joined-out {output.joined:q} > {log:q} 2>&1"


rule learn_aggregate:
    input:
        ratings=human_ratings_csv,
        scores=human_score_files,
    output:
        f"{RESULTS}/{{dataset}}/human/aggregate.json",
    log:
        "logs/learn_aggregate/{dataset}.log",
    threads: 1
    params:
        outputs=human_outputs_dir,
        scores=human_scores_arg,
        opts=human_aggregate_args,
    shell:
        "python {SCRIPTS:q}/learn_aggregate.py --ratings {input.ratings:q} --outputs {params.outputs:q}"
        " --scores {params.scores} {params.opts} --out {output:q} > {log:q} 2>&1"
