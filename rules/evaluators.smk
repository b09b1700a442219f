# Pretrained evaluators (Pang & Gimpel 2019, Fu et al. 2018, Mir et al. 2019): style classifiers, GRU LMs,
# embeddings, idf, style lexicon, adversarial naturalness classifiers. Outputs: results/{dataset}/evaluators/.
# Classifiers and LMs read the model-unit text (.txt, BPE pieces when enabled) and vocab.txt; idf, lexicon,
# embeddings and naturalness read word-level text (.raw.txt for BPE datasets).
import json
import re

# ---- input functions (the lead may move them to common.smk) ----


def ev_config():
    return config.get("evaluators") or {}


def ev_section(name):
    return dict(ev_config().get(name) or {})


def ev_dir(dataset):
    return f"{RESULTS}/{dataset}/evaluators"


def ev_resource(key, default):
    return (ev_config().get("resources") or {}).get(key, default)


def ev_words(dataset, split, style):
    """Word-level text of a split/style: raw.txt for BPE datasets, the .txt otherwise."""
    bpe = dataset_config(dataset).get("bpe", {}).get("enabled", False)
    return prepared(
        dataset, f"{split}.{style}.raw.txt" if bpe else f"{split}.{style}.txt"
    )


def ev_content_mask():
    return bool((ev_config().get("content_mask") or {}).get("enabled", False))


def ev_torch_config(section, dataset):
    """Model + training settings of a torch evaluator; vocabulary min_count defaults to the dataset's."""
    cfg = {
        "min_count": dataset_config(dataset).get("vocab", {}).get("min_count", 1),
        **ev_section(section),
    }
    if ev_config().get("device"):
        cfg["device"] = ev_config()["device"]
    return json.dumps(cfg)


def ev_torch_inputs(wildcards):
    ds = wildcards.dataset
    inputs = {
        "train": [prepared(ds, f"train.{s}.txt") for s in STYLES],
        "dev": [prepared(ds, f"dev.{s}.txt") for s in STYLES],
        "vocab": prepared(ds, "vocab.txt"),
    }
    if ev_content_mask():
        inputs["content"] = f"{ev_dir(ds)}/content_words.json"
    return inputs


def ev_lm_inputs(wildcards):
    inputs = ev_torch_inputs(wildcards)
    if wildcards.lm != "joint":  # style0 / style1: that style's corpus only
        s = wildcards.lm[-1]
        inputs["train"] = [prepared(wildcards.dataset, f"train.{s}.txt")]
        inputs["dev"] = [prepared(wildcards.dataset, f"dev.{s}.txt")]
    return inputs


def ev_content_arg(wildcards, input):
    return f"--content-words {quoted(input.content)}" if "content" in input.keys() else ""


def ev_naturalness_outputs(wildcards):
    """The outputs the classifier learns from: config evaluators.naturalness.split, by default `dev` for
    our models (so test outputs stay unseen) at naturalness.checkpoint (default: their last half epoch), and
    `test` at `final` for external systems (the only outputs they publish).
    """
    nat, ds = ev_section("naturalness"), wildcards.dataset
    m = re.fullmatch(r"(.+)\.seed(\d+)", wildcards.system)
    split = nat.get("split") or ("dev" if m else "test")
    if m:
        ckpt = nat.get("checkpoint") or globals()["transfer_half_epochs"]()[-1]
        d = f"{RESULTS}/{ds}/models/{m.group(1)}/seed{m.group(2)}/transfers"
    else:
        ckpt, d = "final", f"{RESULTS}/{ds}/systems/{wildcards.system}"
    return [f"{d}/{split}.{ckpt}.{s}.txt" for s in STYLES]


def ev_naturalness_config(wildcards):
    nat = ev_section("naturalness")
    cfg = {k: v for k, v in nat.items() if k not in ("lr", "nn", "split", "checkpoint")}
    cfg.update(nat.get(wildcards.kind) or {})
    if wildcards.kind == "nn" and ev_config().get("device"):
        cfg["device"] = ev_config()["device"]
    return json.dumps(cfg)


rule train_style_cnn:
    input:
        unpack(ev_torch_inputs),
    output:
        f"{RESULTS}/{{dataset}}/evaluators/style_cnn.pt",
    log:
        f"{RESULTS}/{{dataset}}/logs/train_style_cnn.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/benchmarks/train_style_cnn.tsv"
    threads: ev_config().get("threads", 2)
    resources:
        gpu=ev_resource("gpu", 1),
        mem_mb=ev_resource("mem_mb", 4000),
        runtime=ev_resource("runtime", 120),
    params:
        config=lambda wildcards: ev_torch_config("cnn", wildcards.dataset),
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
        f"{RESULTS}/{{dataset}}/logs/train_style_lstm.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/benchmarks/train_style_lstm.tsv"
    threads: ev_config().get("threads", 2)
    resources:
        gpu=ev_resource("gpu", 1),
        mem_mb=ev_resource("mem_mb", 4000),
        runtime=ev_resource("runtime", 120),
    params:
        config=lambda wildcards: ev_torch_config("lstm", wildcards.dataset),
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
        f"{RESULTS}/{{dataset}}/logs/train_lm.{{lm}}.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/benchmarks/train_lm.{{lm}}.tsv"
    wildcard_constraints:
        lm="joint|style0|style1",
    threads: ev_config().get("threads", 2)
    resources:
        gpu=ev_resource("gpu", 1),
        mem_mb=ev_resource("mem_mb", 4000),
        runtime=ev_resource("runtime", 120),
    params:
        config=lambda wildcards: ev_torch_config("lm", wildcards.dataset),
        content=ev_content_arg,
    shell:
        "python {SCRIPTS:q}/train_lm.py --train {input.train:q} --dev {input.dev:q} --vocab {input.vocab:q}"
        " --config {params.config:q} {params.content} --threads {threads} --out {output:q} > {log:q}.json 2> {log:q}"


rule build_embeddings:
    input:
        train=lambda wildcards: [
            ev_words(wildcards.dataset, "train", s) for s in STYLES
        ],
        extra=lambda wildcards: [
            ev_words(wildcards.dataset, sp, s)
            for sp in ("dev", "test")
            for s in STYLES
        ],
        lexicon=lambda wildcards: (
            f"{ev_dir(wildcards.dataset)}/style_lexicon.json"
            if wildcards.emb == "word2vec_masked"
            else []
        ),
    output:
        f"{RESULTS}/{{dataset}}/evaluators/{{emb}}.kv",
    log:
        f"{RESULTS}/{{dataset}}/logs/build_embeddings.{{emb}}.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/benchmarks/build_embeddings.{{emb}}.tsv"
    wildcard_constraints:
        emb="glove|word2vec|word2vec_masked",
    threads: 1
    resources:
        mem_mb=ev_resource("mem_mb", 4000),
    params:
        config=lambda wildcards: json.dumps(
            ev_section("glove" if wildcards.emb == "glove" else "word2vec")
        ),
        lexicon=lambda wildcards, input: (
            f"--lexicon {quoted(input.lexicon)}" if input.lexicon else ""
        ),
    shell:
        "python {SCRIPTS:q}/build_embeddings.py --kind {wildcards.emb} --train {input.train:q} --extra {input.extra:q}"
        " {params.lexicon} --config {params.config:q} --out {output:q} > {log:q} 2>&1"


rule build_idf:
    input:
        lambda wildcards: [ev_words(wildcards.dataset, "train", s) for s in STYLES],
    output:
        f"{RESULTS}/{{dataset}}/evaluators/idf.json",
    log:
        f"{RESULTS}/{{dataset}}/logs/build_idf.log",
    threads: 1
    shell:
        "python {SCRIPTS:q}/build_idf.py --train {input:q} --out {output:q} > {log:q} 2>&1"


rule build_style_lexicon:
    input:
        lambda wildcards: [ev_words(wildcards.dataset, "train", s) for s in STYLES],
    output:
        lexicon=f"{RESULTS}/{{dataset}}/evaluators/style_lexicon.json",
        content=f"{RESULTS}/{{dataset}}/evaluators/content_words.json",
    log:
        f"{RESULTS}/{{dataset}}/logs/build_style_lexicon.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/benchmarks/build_style_lexicon.tsv"
    threads: 1
    resources:
        mem_mb=ev_resource("mem_mb", 4000),
    params:
        config=lambda wildcards: json.dumps(ev_section("style_lexicon")),
        content=lambda wildcards: json.dumps(
            {k: v for k, v in ev_section("content_mask").items() if k != "enabled"}
        ),
    shell:
        "python {SCRIPTS:q}/build_style_lexicon.py --train {input:q} --config {params.config:q}"
        " --out {output.lexicon:q} --content-out {output.content:q} --content-config {params.content:q} > {log:q} 2>&1"


rule train_naturalness:
    input:
        human=lambda wildcards: [
            ev_words(wildcards.dataset, "train", s) for s in STYLES
        ],
        outputs=ev_naturalness_outputs,
    output:
        f"{RESULTS}/{{dataset}}/evaluators/naturalness/{{system}}.{{kind}}.{{ext}}",
    log:
        f"{RESULTS}/{{dataset}}/logs/train_naturalness.{{system}}.{{kind}}.{{ext}}.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/benchmarks/train_naturalness.{{system}}.{{kind}}.{{ext}}.tsv"
    wildcard_constraints:
        kind="lr|nn",
        ext="json|pt",
    threads: 1
    resources:
        gpu=lambda wildcards: ev_resource("gpu", 1) if wildcards.kind == "nn" else 0,
        mem_mb=ev_resource("mem_mb", 4000),
    params:
        config=ev_naturalness_config,
    shell:
        "python {SCRIPTS:q}/train_naturalness.py --kind {wildcards.kind} --human {input.human:q}"
        " --outputs {input.outputs:q} --config {params.config:q} --threads {threads} --out {output:q}"
        " > {log:q}.json 2> {log:q}"


def evaluator_targets(dataset):
    """Every evaluator file of a dataset (naturalness classifiers are pulled in by the score rule)."""
    d = ev_dir(dataset)
    files = [
        "style_cnn.pt",
        "style_lstm.pt",
        "lm_joint.pt",
        "lm_style0.pt",
        "lm_style1.pt",
        "glove.kv",
        "word2vec.kv",
        "word2vec_masked.kv",
        "idf.json",
        "style_lexicon.json",
    ]
    return [f"{d}/{f}" for f in files]
