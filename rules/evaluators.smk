# Pretrained evaluators (Pang & Gimpel 2019, Fu et al. 2018, Mir et al. 2019) -> layout.evaluators().
# Classifiers and LMs read the model-unit text (BPE pieces when enabled) and vocab.txt; idf, lexicon,
# embeddings and naturalness read the word-level text.
# the GloVe zip that build_embeddings reads, to fetch for Sim -> its URL, the mirror's when one is set ({}: none;
# tst.rule_inputs.glove_download)
GLOVE_DOWNLOAD = rule_inputs.glove_download(config, MIRROR)


rule train_classifier:
    input:
        unpack(torch_evaluator_inputs),
    output:
        layout.evaluators(file=layout.CLASSIFIER),
    log:
        "logs/train_classifier/{dataset}/{kind}.log",
    benchmark:
        "benchmarks/train_classifier/{dataset}/{kind}.tsv"
    wildcard_constraints:
        kind=layout.CONSTRAINTS["classifier"],
    priority: 8  # after the joint LM and the acceptability start: the validity checks and every score job wait for the CNN
    conda:
        env("evaluators")
    threads: EV_JOB["threads"]
    resources:
        gpu=EV_JOB["gpu"],
        mem_mb=EV_JOB["mem_mb"],
        runtime=EV_JOB["runtime"],
    params:
        settings=lookup(dpath="evaluators/{dataset}/{kind}", within=TABLE),
        code=code("train_classifier.py"),
    script:
        "../scripts/train_classifier.py"


rule train_lm:
    input:
        unpack(torch_evaluator_inputs),
    output:
        layout.evaluators(file=layout.LANGUAGE_MODEL),
    log:
        "logs/train_lm/{dataset}/{lm}.log",
    benchmark:
        "benchmarks/train_lm/{dataset}/{lm}.tsv"
    wildcard_constraints:
        lm=layout.CONSTRAINTS["lm"],
    priority: 10  # the evaluation stage's critical path: joint LM -> style LMs -> scores
    conda:
        env("evaluators")
    threads: EV_JOB["threads"]
    resources:
        gpu=EV_JOB["gpu"],
        mem_mb=EV_JOB["mem_mb"],
        runtime=EV_JOB["runtime"],
    params:
        settings=lookup(dpath="evaluators/{dataset}/lm", within=TABLE),
        code=code("train_lm.py"),
    script:
        "../scripts/train_lm.py"


rule build_embeddings:
    input:
        train=words("train"),
        extra=words("dev", "test"),
        lexicon=embeddings_lexicon,
        glove=lambda w: list(GLOVE_DOWNLOAD) if w.emb == "glove" else [],  # the zip to fetch
    output:
        layout.evaluators(file=layout.EMBEDDING),
    log:
        "logs/build_embeddings/{dataset}/{emb}.log",
    benchmark:
        "benchmarks/build_embeddings/{dataset}/{emb}.tsv"
    wildcard_constraints:
        emb=layout.CONSTRAINTS["embedding"],
    conda:
        env("evaluators")
    resources:
        mem_mb=EV_JOB["mem_mb"],
    params:
        settings=lookup(dpath="embeddings/{emb}", within=TABLE),
        code=code("build_embeddings.py"),
    script:
        "../scripts/build_embeddings.py"


# evaluators.glove.source downloaded once into its cache_dir (needs internet; tst.rule_inputs.glove_download), in a
# job of its own so that an offline run stops before any job (tst.data.downloads.check_reachable) rather than in
# build_embeddings.
if GLOVE_DOWNLOAD:

    rule download_glove:
        output:
            list(GLOVE_DOWNLOAD),
        log:
            "logs/download_glove.log",
        localrule: True
        conda:
            env("data")
        params:
            url=list(GLOVE_DOWNLOAD.values())[0],
            sha256=rule_inputs.glove_sha256(config),  # evaluators.glove.sha256; None: logged, not checked
            code=code("download_data.py"),
        script:
            "../scripts/download_data.py"


rule build_idf:
    input:
        words("train"),
    output:
        layout.evaluators(file=IDF),
    log:
        "logs/build_idf/{dataset}.log",
    conda:
        env("evaluators")
    params:
        code=code("build_idf.py"),
    script:
        "../scripts/build_idf.py"


# The content score's sentence embeddings (tst.metrics.sbert) of a split's sentences, once: the score jobs
# preload them and encode only their outputs (20 jobs on Yelp, ~4 s of encoding each saved).
rule embed_sources:
    input:
        words("{split}"),
    output:
        vectors=layout.evaluators(file=names.sbert_sources_file("{split}", "npy")),
        texts=layout.evaluators(file=names.sbert_sources_file("{split}", "txt")),
    log:
        "logs/embed_sources/{dataset}.{split}.log",
    benchmark:
        "benchmarks/embed_sources/{dataset}.{split}.tsv"
    wildcard_constraints:
        split="dev|test",
    conda:
        env("score")
    params:
        precision=lambda w: stages.score_options(config, w.dataset).get("precision"),  # the score jobs'
        code=code("embed_sources.py"),
    script:
        "../scripts/embed_sources.py"


rule build_style_lexicon:
    input:
        words("train"),
    output:
        lexicon=layout.evaluators(file=STYLE_LEXICON),
        content=layout.evaluators(file=layout.CONTENT_WORDS),
    log:
        "logs/build_style_lexicon/{dataset}.log",
    benchmark:
        "benchmarks/build_style_lexicon/{dataset}.tsv"
    conda:
        env("evaluators")
    resources:
        mem_mb=EV_JOB["mem_mb"],
    params:
        lexicon=config["evaluators"].get("style_lexicon") or {},
        content_mask=content_mask_settings(),
        code=code("build_style_lexicon.py"),
    script:
        "../scripts/build_style_lexicon.py"


# Mir et al.'s adversarial classifiers: one system's inputs (human) vs its outputs
rule train_naturalness:
    input:
        unpack(naturalness_outputs),
    output:
        layout.evaluators(file=layout.NATURALNESS),
    log:
        "logs/train_naturalness/{dataset}/{system}.{kind}.{ext}.log",
    benchmark:
        "benchmarks/train_naturalness/{dataset}/{system}.{kind}.{ext}.tsv"
    wildcard_constraints:
        system=layout.CONSTRAINTS["name"],
        kind=layout.CONSTRAINTS["naturalness_kind"],
        ext=layout.CONSTRAINTS["naturalness_ext"],
    conda:
        env("evaluators")
    resources:
        gpu=naturalness_gpu,
        mem_mb=EV_JOB["mem_mb"],
    params:
        settings=lookup(dpath="naturalness/{kind}", within=TABLE),
        cross_fit=naturalness_cross_fit,
        code=code("train_naturalness.py"),
    script:
        "../scripts/train_naturalness.py"


# Fluency: a classifier of real training sentences vs corrupted copies (tst.evaluators.acceptability; ours).
# Reads the model-unit text like the style classifiers, without the content mask (it judges word order); the
# joint LM continues a share of the sentences (evaluators.acceptability.lm_share) when that share is not 0.
rule train_acceptability:
    input:
        unpack(lambda w: rule_inputs.acceptability_files(config, w.dataset)),
    output:
        layout.evaluators(file=names.ACCEPTABILITY),
    log:
        "logs/train_acceptability/{dataset}.log",
    benchmark:
        "benchmarks/train_acceptability/{dataset}.tsv"
    priority: 10  # the longest evaluator job (it reads no LM: it trains beside the joint LM); the scores wait for it
    conda:
        env("evaluators")
    threads: EV_JOB["threads"]
    resources:
        gpu=EV_JOB["gpu"],
        mem_mb=EV_JOB["mem_mb"],
        runtime=EV_JOB["runtime"],
    params:
        settings=lookup(dpath="evaluators/{dataset}/acceptability", within=TABLE),
        code=code("train_acceptability.py"),
    script:
        "../scripts/train_acceptability.py"
