# Attribute words of Yu et al. 2021 (§5.1): parse once, then list options only rerun `attributes`.


rule parse:
    input:
        attributes_text,
    output:
        f"{RESULTS}/{{dataset}}/attributes/{{split}}.{{style}}.parse.jsonl",
    log:
        "logs/parse/{dataset}/{split}.{style}.log",
    benchmark:
        "benchmarks/parse/{dataset}/{split}.{style}.tsv"
    threads: 1
    params:
        nlp=attributes_nlp,
    shell:
        "python {SCRIPTS:q}/parse.py --input {input:q} --nlp {params.nlp:q} --out {output:q} 2> {log:q}"


rule attributes:
    input:
        rules.parse.output,
    output:
        f"{RESULTS}/{{dataset}}/attributes/{{split}}.{{style}}.attributes.jsonl",
    log:
        "logs/attributes/{dataset}/{split}.{style}.log",
    threads: 1
    params:
        options=attributes_options,
    shell:
        "python {SCRIPTS:q}/attributes.py --parse {input:q} --options {params.options:q} --out {output:q} > {log:q}"
