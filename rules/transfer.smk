# Transfer models (Pang & Gimpel 2019 M0-M7, Fu et al. 2018) per dataset x variant x seed.
# Declared outputs: the dev transfers of every checkpoint and the last checkpoint. The other checkpoints and
# losses.csv are deliberately not declared: Snakemake deletes a killed job's declared outputs before
# rerunning it, and the trainer resumes from those checkpoints when they were trained with the same
# settings, data and vocabulary (after a change of those it starts afresh).


rule train_transfer:
    input:
        unpack(transfer_inputs),
    output:
        dev=[
            layout.transfer(split="dev", ckpt=c, style=s)
            for c in CHECKPOINTS
            for s in STYLES
        ],
        last=layout.checkpoint(ckpt=CHECKPOINTS[-1]),
    log:
        "logs/train_transfer/{dataset}/{variant}.seed{seed}.log",
    benchmark:
        "benchmarks/train_transfer/{dataset}/{variant}.seed{seed}.tsv"
    priority: 5  # the run's longest chain: training -> test transfers -> the model's scores
    conda:
        env("transfer")
    threads: TRANSFER_JOB["threads"]
    resources:
        gpu=TRANSFER_JOB["gpu"],
        mem_mb=TRANSFER_JOB["mem_mb"],
        runtime=TRANSFER_JOB["runtime"],
    params:
        settings=lambda w: stages.transfer_settings(
            config, TABLE["variants"][w.variant]
        ),
        variant=lookup(dpath="variants/{variant}", within=TABLE),
        paraphrase_source=lambda w: stages.paraphrase_source(
            config, w.dataset, TABLE["variants"][w.variant]
        ),
        min_count=lookup(dpath="vocab/{dataset}/min_count", within=TABLE),
        code=code("train_transfer.py"),
    script:
        "../scripts/train_transfer.py"


# greedy test transfers of every test checkpoint of one trained model, in one job
rule transfer_test:
    input:
        last=rules.train_transfer.output.last,
        test=per_style(layout.text, split="test"),
        entities=per_style(layout.entities, split="test"),
    output:
        [
            layout.transfer(split="test", ckpt=c, style=s)
            for c in stages.test_checkpoints(config)
            for s in STYLES
        ],
    log:
        "logs/transfer_test/{dataset}/{variant}.seed{seed}.log",
    priority: 10  # seconds; the model's score and naturalness jobs wait for it (the demo: one waited 2 min)
    conda:
        env("transfer")
    threads: TRANSFER_JOB["threads"]
    resources:
        gpu=TRANSFER_JOB["gpu"],
    params:
        checkpoints=stages.test_checkpoints(config),
        beam_width=stages.beam_width(config),
        code=code("transfer_test.py"),
    script:
        "../scripts/transfer_test.py"
