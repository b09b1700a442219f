# Transfer models (Pang & Gimpel 2019 M0-M7, Fu et al. 2018) per dataset x variant x seed.
# Outputs declared: the dev transfers of every half epoch and the last checkpoint. The intermediate
# checkpoints and losses.csv are deliberately NOT declared: Snakemake deletes a killed job's declared outputs
# before rerunning it, and the trainer resumes from those checkpoints (rewriting missing dev transfers) when
# they were trained with the same settings, data and vocabulary; after a config change it starts afresh.


rule train_transfer:
    input:
        unpack(transfer_inputs),
    output:
        dev=[
            f"{TRANSFER_DIR}/transfers/dev.{e}.{s}.txt"
            for e in transfer_half_epochs()
            for s in STYLES
        ],
        last=f"{TRANSFER_DIR}/{transfer_last_checkpoint()}",
    log:
        "logs/train_transfer/{dataset}/{variant}.seed{seed}.log",
    benchmark:
        "benchmarks/train_transfer/{dataset}/{variant}.seed{seed}.tsv"
    threads: transfer_resource("threads", 2)
    resources:
        gpu=transfer_resource("gpu", 1),
        mem_mb=transfer_resource("mem_mb", 8000),
        runtime=transfer_resource("runtime", 240),
    params:
        out=transfer_out_dir,
        config=transfer_config_json,
        variant=transfer_variant_json,
        min_count=transfer_min_count,
        extra=transfer_args,
    shell:
        "python {SCRIPTS:q}/train_transfer.py --train {input.train:q} --dev {input.dev:q} --vocab {input.vocab:q}"
        " --min-count {params.min_count} --config {params.config:q} --variant {params.variant:q}"
        " --seed {wildcards.seed} --threads {threads} {params.extra} --out {params.out:q} 2> {log:q}"


# the trained run keeps every half-epoch checkpoint; input `last` only orders this after training
rule transfer_test:
    input:
        unpack(transfer_test_inputs),
    output:
        [f"{TRANSFER_DIR}/transfers/test.{{checkpoint}}.{s}.txt" for s in STYLES],
    log:
        "logs/transfer_test/{dataset}/{variant}.seed{seed}.{checkpoint}.log",
    threads: 1
    resources:
        gpu=transfer_resource("gpu", 1),
    params:
        ckpt=transfer_checkpoint_file,
        entities=transfer_entities_arg,
    shell:
        "python {SCRIPTS:q}/transfer_test.py --checkpoint {params.ckpt:q} --test {input.test:q} {params.entities}"
        " --out {output:q} --threads {threads} 2> {log:q}"
