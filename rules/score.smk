# Scores (Pang & Gimpel 2019, Fu et al. 2018, Mir et al. 2019, Yu et al. 2021): one JSON + TSV per system,
# split and checkpoint. Every metric whose evaluator is listed in config score.evaluators is computed.


rule score:
    input:
        unpack(score_inputs),
    output:
        json=f"{RESULTS}/{{dataset}}/scores/{{system}}/{{split}}.{{checkpoint}}.json",
        tsv=f"{RESULTS}/{{dataset}}/scores/{{system}}/{{split}}.{{checkpoint}}.tsv",
    log:
        "logs/score/{dataset}/{system}/{split}.{checkpoint}.log",
    benchmark:
        "benchmarks/score/{dataset}/{system}/{split}.{checkpoint}.tsv"
    threads: 1
    params:
        dataset_dir=score_dataset_dir,
        extra=score_args,
        options=score_options,
    shell:
        "python {SCRIPTS:q}/score.py --dataset-dir {params.dataset_dir:q} --system {wildcards.system}"
        " --split {wildcards.split} --checkpoint {wildcards.checkpoint}"
        " --sources {input.sources:q} --outputs {input.outputs:q}"
        " {params.extra} --options {params.options:q} --json {output.json:q} --tsv {output.tsv:q} 2> {log:q} > /dev/null"
