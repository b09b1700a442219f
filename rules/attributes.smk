# Attribute words of Yu et al. 2021 (§5.1): parse once, then list options only rerun `attributes`.
import json


def attributes_text(wildcards):
    """The word-level text of a split/style: raw.txt for BPE datasets, the .txt otherwise."""
    bpe = dataset_config(wildcards.dataset).get("bpe", {}).get("enabled", False)
    name = (
        f"{wildcards.split}.{wildcards.style}.raw.txt"
        if bpe
        else f"{wildcards.split}.{wildcards.style}.txt"
    )
    return prepared(wildcards.dataset, name)


def attributes_file(dataset, split, style, kind="attributes"):
    return f"{RESULTS}/{dataset}/attributes/{split}.{style}.{kind}.jsonl"


def attribute_targets(dataset, splits=SPLITS):
    """Every attributes.jsonl of a dataset (for `rule all` or the transfer-model rules)."""
    return [attributes_file(dataset, sp, st) for sp in splits for st in STYLES]


rule parse:
    input:
        attributes_text,
    output:
        f"{RESULTS}/{{dataset}}/attributes/{{split}}.{{style}}.parse.jsonl",
    log:
        f"{RESULTS}/{{dataset}}/logs/parse.{{split}}.{{style}}.log",
    threads: 1
    params:
        nlp=lambda wildcards: json.dumps(config.get("nlp", {})),
    shell:
        "python {SCRIPTS:q}/parse.py --input {input:q} --nlp {params.nlp:q} --out {output:q} 2> {log:q}"


rule attributes:
    input:
        rules.parse.output,
    output:
        f"{RESULTS}/{{dataset}}/attributes/{{split}}.{{style}}.attributes.jsonl",
    log:
        f"{RESULTS}/{{dataset}}/logs/attributes.{{split}}.{{style}}.log",
    threads: 1
    params:
        options=lambda wildcards: json.dumps(config.get("attributes", {})),
    shell:
        "python {SCRIPTS:q}/attributes.py --parse {input:q} --options {params.options:q} --out {output:q} > {log:q}"
