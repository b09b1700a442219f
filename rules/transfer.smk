# Transfer models (Pang & Gimpel 2019 M0-M7, Fu et al. 2018) per dataset x variant x seed.
# Outputs declared: the dev transfers of every half epoch and the last checkpoint. The intermediate
# checkpoints and losses.csv are deliberately NOT declared: Snakemake deletes a killed job's declared outputs
# before rerunning it, and the trainer resumes from those checkpoints (rewriting missing dev transfers).
import json

# ---- input functions (the lead may move them to common.smk) ----


def transfer_config():
    return config.get("transfer", {})


def transfer_variant(variant):
    return transfer_config()["variants"][variant]


def transfer_train_config():
    """The `transfer` section minus the workflow-only keys: what tst.train.trainer.train reads."""
    skip = {"variants", "run_variants", "seeds", "test_checkpoints", "resources"}
    return {k: v for k, v in transfer_config().items() if k not in skip}


def transfer_epochs():
    return int(transfer_config().get("epochs", 20))


def transfer_half_epochs():
    """Checkpoint labels ep0.5 ... ep{epochs}.0 (one per half epoch)."""
    return [f"ep{k / 2:.1f}" for k in range(1, 2 * transfer_epochs() + 1)]


def transfer_dir(dataset, variant, seed):
    return f"{RESULTS}/{dataset}/models/{variant}/seed{seed}"


# the same folder as a pattern with the rule's wildcards
TRANSFER_DIR = f"{RESULTS}/{{dataset}}/models/{{variant}}/seed{{seed}}"


def transfer_last_checkpoint():
    return f"checkpoints/{transfer_half_epochs()[-1]}.pt"


def transfer_ner(dataset):
    return dataset_config(dataset).get("ner", {}).get("enabled", False)


def transfer_inputs(wildcards):
    ds, lam = wildcards.dataset, transfer_variant(wildcards.variant)
    inputs = {
        "train": [prepared(ds, f"train.{s}.txt") for s in STYLES],
        "dev": [prepared(ds, f"dev.{s}.txt") for s in STYLES],
        "vocab": prepared(ds, "vocab.txt"),
    }
    if lam.get("lambda_para", 0) > 0:
        inputs["para"] = [prepared(ds, f"paraphrase.{s}.tsv") for s in STYLES]
    if lam.get("lambda_lm", 0) > 0:
        inputs["lm"] = [f"{RESULTS}/{ds}/evaluators/lm_style{s}.pt" for s in STYLES]
    if lam.get("lambda_attr", 0) > 0:
        inputs["attributes"] = [f"{RESULTS}/{ds}/attributes/train.{s}.attributes.jsonl" for s in STYLES]
    if transfer_ner(ds):
        inputs["entities"] = [prepared(ds, f"dev.{s}.entities.jsonl") for s in STYLES]
    return inputs


def transfer_args(wildcards, input):
    """Optional command-line arguments of scripts/train_transfer.py."""
    args = []
    if "para" in input.keys():
        args.append("--paraphrase " + quoted(input.para))
    if "lm" in input.keys():
        args.append("--lm " + quoted(input.lm))
    if "entities" in input.keys():
        args.append("--dev-entities " + quoted(input.entities))
    if "attributes" in input.keys():
        args.append("--attributes " + quoted(input.attributes))
    return " ".join(args)


def transfer_test_checkpoints():
    """Checkpoints whose test transfers are written (config transfer.test_checkpoints; default: every half
    epoch, which the checkpoint selection of Tables 2/3 and the several checkpoints of Table 6 need)."""
    return transfer_config().get("test_checkpoints") or transfer_half_epochs()


def transfer_targets(dataset):
    """Every dev and test transfer of the configured variants and seeds (for `rule all` / scoring)."""
    out = []
    for variant in transfer_config().get("run_variants", []):
        for seed in transfer_config().get("seeds", [1]):
            d = transfer_dir(dataset, variant, seed)
            out += [f"{d}/transfers/dev.{e}.{s}.txt" for e in transfer_half_epochs() for s in STYLES]
            out += [f"{d}/transfers/test.{c}.{s}.txt" for c in transfer_test_checkpoints() for s in STYLES]
    return out


def transfer_resource(key, default):
    return transfer_config().get("resources", {}).get(key, default)


rule train_transfer:
    input:
        unpack(transfer_inputs),
    output:
        dev=[f"{TRANSFER_DIR}/transfers/dev.{e}.{s}.txt" for e in transfer_half_epochs() for s in STYLES],
        last=f"{TRANSFER_DIR}/{transfer_last_checkpoint()}",
    params:
        out=lambda wildcards: transfer_dir(wildcards.dataset, wildcards.variant, wildcards.seed),
        config=lambda wildcards: json.dumps(transfer_train_config()),
        variant=lambda wildcards: json.dumps(transfer_variant(wildcards.variant)),
        min_count=lambda wildcards: dataset_config(wildcards.dataset).get("vocab", {}).get("min_count", 1),
        extra=transfer_args,
    log:
        f"{RESULTS}/{{dataset}}/logs/train_transfer.{{variant}}.seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/benchmarks/train_transfer.{{variant}}.seed{{seed}}.tsv"
    threads: transfer_resource("threads", 2)
    resources:
        gpu=transfer_resource("gpu", 1),
        mem_mb=transfer_resource("mem_mb", 8000),
        runtime=transfer_resource("runtime", 240),
    shell:
        "python {SCRIPTS:q}/train_transfer.py --train {input.train:q} --dev {input.dev:q} --vocab {input.vocab:q}"
        " --min-count {params.min_count} --config {params.config:q} --variant {params.variant:q}"
        " --seed {wildcards.seed} --threads {threads} {params.extra} --out {params.out:q} 2> {log:q}"


def transfer_test_inputs(wildcards):
    ds = wildcards.dataset
    inputs = {
        "last": f"{transfer_dir(ds, wildcards.variant, wildcards.seed)}/{transfer_last_checkpoint()}",
        "test": [prepared(ds, f"test.{s}.txt") for s in STYLES],
    }
    if transfer_ner(ds):
        inputs["entities"] = [prepared(ds, f"test.{s}.entities.jsonl") for s in STYLES]
    return inputs


rule transfer_test:
    input:
        unpack(transfer_test_inputs),
    output:
        [f"{TRANSFER_DIR}/transfers/test.{{checkpoint}}.{s}.txt" for s in STYLES],
    params:
        # the trained run keeps every half-epoch checkpoint; `last` above only orders this after training
        ckpt=lambda wildcards: f"{transfer_dir(wildcards.dataset, wildcards.variant, wildcards.seed)}"
        f"/checkpoints/{wildcards.checkpoint}.pt",
        entities=lambda wildcards, input: (
            "--entities " + quoted(input.entities) if "entities" in input.keys() else ""
        ),
    log:
        f"{RESULTS}/{{dataset}}/logs/transfer_test.{{variant}}.seed{{seed}}.{{checkpoint}}.log",
    threads: 1
    resources:
        gpu=transfer_resource("gpu", 1),
    shell:
        "python {SCRIPTS:q}/transfer_test.py --checkpoint {params.ckpt:q} --test {input.test:q} {params.entities}"
        " --out {output:q} --threads {threads} 2> {log:q}"
