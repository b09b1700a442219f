# Pretrained evaluators (Pang & Gimpel 2019, Fu et al. 2018, Mir et al. 2019): style classifiers, GRU LMs,
# embeddings, idf, style lexicon, adversarial naturalness classifiers. Outputs: results/{dataset}/evaluators/.
# Classifiers and LMs read the model-unit text (.txt, BPE pieces when enabled) and vocab.txt; idf, lexicon,
# embeddings and naturalness read word-level text (.raw.txt for BPE datasets).


rule train_style_cnn:
    input:
        unpack(ev_torch_inputs),
    output:
        f"{RESULTS}/{{dataset}}/evaluators/style_cnn.pt",
    log:
        "logs/train_style_cnn/{dataset}.log",
    benchmark:
        "benchmarks/train_style_cnn/{dataset}.tsv"
    threads: ev_config().get("threads", 2)
    resources:
        gpu=ev_resource("gpu", 1),
        mem_mb=ev_resource("mem_mb", 4000),
        runtime=ev_resource("runtime", 120),
    params:
        config=ev_cnn_config,
        content=ev_content_arg,
    shell:
        "python {SCRIPTS:q}/train_classifier.py --kind cnn --train {input.train:q} --dev {input.dev:q}"
        " --vocab {input.vocab:q} --config {params.config:q} {params.content} --threads {threads}"
        " --out {output:q} > {log:q}.json 2> {log:q}"


rule train_style_lstm:
    input:
        unpack(ev_torch_inputs),
    output:
        f"{RESULTS}/{{dataset}}/evaluators/style_lstm.pt",
    log:
        "logs/train_style_lstm/{dataset}.log",
    benchmark:
        "benchmarks/train_style_lstm/{dataset}.tsv"
    threads: ev_config().get("threads", 2)
    resources:
        gpu=ev_resource("gpu", 1),
        mem_mb=ev_resource("mem_mb", 4000),
        runtime=ev_resource("runtime", 120),
    params:
        config=ev_lstm_config,
        content=ev_content_arg,
    shell:
        "python {SCRIPTS:q}/train_classifier.py --kind lstm --train {input.train:q} --dev {input.dev:q}"
        " --vocab {input.vocab:q} --config {params.config:q} {params.content} --threads {threads}"
        " --out {output:q} > {log:q}.json 2> {log:q}"


rule train_lm:
    input:
        unpack(ev_lm_inputs),
    output:
        f"{RESULTS}/{{dataset}}/evaluators/lm_{{lm}}.pt",
    log:
        "logs/train_lm/{dataset}/{lm}.log",
    benchmark:
        "benchmarks/train_lm/{dataset}/{lm}.tsv"
    wildcard_constraints:
        lm="joint|style0|style1",
    threads: ev_config().get("threads", 2)
    resources:
        gpu=ev_resource("gpu", 1),
        mem_mb=ev_resource("mem_mb", 4000),
        runtime=ev_resource("runtime", 120),
    params:
        config=ev_lm_config,
        content=ev_content_arg,
    shell:
        "python {SCRIPTS:q}/train_lm.py --train {input.train:q} --dev {input.dev:q} --vocab {input.vocab:q}"
        " --config {params.config:q} {params.content} --threads {threads} --out {output:q} > {log:q}.json 2> {log:q}"


rule build_embeddings:
    input:
        train=ev_train_words,
        extra=ev_extra_words,
        lexicon=ev_embeddings_lexicon,
    output:
        f"{RESULTS}/{{dataset}}/evaluators/{{emb}}.kv",
    log:
        "logs/build_embeddings/{dataset}/{emb}.log",
    benchmark:
        "benchmarks/build_embeddings/{dataset}/{emb}.tsv"
    wildcard_constraints:
        emb="glove|word2vec|word2vec_masked",
    threads: 1
    resources:
        mem_mb=ev_resource("mem_mb", 4000),
    params:
        config=ev_embeddings_config,
        lexicon=ev_lexicon_arg,
    shell:
        "python {SCRIPTS:q}/build_embeddings.py --kind {wildcards.emb} --train {input.train:q} --extra {input.extra:q}"
        " {params.lexicon} --config {params.config:q} --out {output:q} > {log:q} 2>&1"


rule build_idf:
    input:
        ev_train_words,
    output:
        f"{RESULTS}/{{dataset}}/evaluators/idf.json",
    log:
        "logs/build_idf/{dataset}.log",
    benchmark:
        "benchmarks/build_idf/{dataset}.tsv"
    threads: 1
    shell:
        "python {SCRIPTS:q}/build_idf.py --train {input:q} --out {output:q} > {log:q} 2>&1"


rule build_style_lexicon:
    input:
        ev_train_words,
    output:
        lexicon=f"{RESULTS}/{{dataset}}/evaluators/style_lexicon.json",
        content=f"{RESULTS}/{{dataset}}/evaluators/content_words.json",
    log:
        "logs/build_style_lexicon/{dataset}.log",
    benchmark:
        "benchmarks/build_style_lexicon/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=ev_resource("mem_mb", 4000),
    params:
        config=ev_style_lexicon_config,
        content=ev_content_mask_config,
    shell:
        "python {SCRIPTS:q}/build_style_lexicon.py --train {input:q} --config {params.config:q}"
        " --out {output.lexicon:q} --content-out {output.content:q} --content-config {params.content:q} > {log:q} 2>&1"


rule train_naturalness:
    input:
        human=ev_train_words,
        outputs=ev_naturalness_outputs,
    output:
        f"{RESULTS}/{{dataset}}/evaluators/naturalness/{{system}}.{{kind}}.{{ext}}",
    log:
        "logs/train_naturalness/{dataset}/{system}.{kind}.{ext}.log",
    benchmark:
        "benchmarks/train_naturalness/{dataset}/{system}.{kind}.{ext}.tsv"
    wildcard_constraints:
        kind="lr|nn",
        ext="json|pt",
    threads: 1
    resources:
        gpu=ev_naturalness_gpu,
        mem_mb=ev_resource("mem_mb", 4000),
    params:
        cross_fit=ev_naturalness_cross_fit,
        config=ev_naturalness_config,
    shell:
        "python {SCRIPTS:q}/train_naturalness.py --kind {wildcards.kind} --human {input.human:q}"
        " --outputs {input.outputs:q} --config {params.config:q} {params.cross_fit} --threads {threads} --out {output:q}"
        " > {log:q}.json 2> {log:q}"
