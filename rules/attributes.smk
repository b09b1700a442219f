# Attribute words of Yu et al. 2021 (§5.1): parse once; a change of list options reruns only `attributes`.


rule parse:
    input:
        layout.text(raw=True),
    output:
        layout.parse(),
    log:
        "logs/parse/{dataset}/{split}.{style}.log",
    benchmark:
        "benchmarks/parse/{dataset}/{split}.{style}.tsv"
    conda:
        env("attributes")
    params:
        nlp=config.get("nlp") or {},
        code=code("parse.py"),
    script:
        "../scripts/parse.py"


rule attributes:
    input:
        rules.parse.output,
    output:
        layout.attribute_lists(),
    log:
        "logs/attributes/{dataset}/{split}.{style}.log",
    priority: 20  # a second each; every score job waits for the lists (the demo's models' scores waited 66 s for one)
    conda:
        env("attributes")
    params:
        options=config.get("attributes") or {},
        code=code("attributes.py"),
    script:
        "../scripts/attributes.py"
