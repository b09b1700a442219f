# Scores (Pang & Gimpel 2019, Fu et al. 2018, Mir et al. 2019, Yu et al. 2021): one JSON + TSV per system,
# split and checkpoint. Every metric whose evaluator is listed in config score.evaluators is computed.
import json
import re

# ---- input functions (the lead may move them to common.smk) ----
SCORE_EVALUATORS = [
    "style_cnn.pt",
    "style_lstm.pt",
    "lm_joint.pt",
    "lm_style0.pt",
    "lm_style1.pt",
    "glove.kv",
    "idf.json",
    "style_lexicon.json",
    "word2vec.kv",
    "word2vec_masked.kv",
]


def score_config():
    return config.get("score") or {}


def score_ours(system):
    """`M0.seed1` -> ("M0", "1") for our models; None for an external system (`mit`, `human`)."""
    m = re.fullmatch(r"(.+)\.seed(\d+)", system)
    return (m.group(1), m.group(2)) if m else None


def score_word_level(dataset, split, style):
    """Word-level text of a split/style: raw.txt for BPE datasets, the .txt otherwise."""
    bpe = dataset_config(dataset).get("bpe", {}).get("enabled", False)
    return prepared(
        dataset, f"{split}.{style}.raw.txt" if bpe else f"{split}.{style}.txt"
    )


def score_outputs(wildcards):
    w, ours = wildcards, score_ours(wildcards.system)
    if ours:
        d = f"{RESULTS}/{w.dataset}/models/{ours[0]}/seed{ours[1]}/transfers"
    else:
        d = f"{RESULTS}/{w.dataset}/systems/{w.system}"
    return [f"{d}/{w.split}.{w.checkpoint}.{s}.txt" for s in STYLES]


def score_sources(wildcards):
    w = wildcards
    if score_ours(w.system):
        return [score_word_level(w.dataset, w.split, s) for s in STYLES]
    return [
        f"{RESULTS}/{w.dataset}/systems/{w.system}/{w.split}.{w.checkpoint}.sources.{s}.txt"
        for s in STYLES
    ]


def score_inputs(wildcards):
    ds = wildcards.dataset
    cfg = score_config()
    inputs = {
        "sources": score_sources(wildcards),
        "outputs": score_outputs(wildcards),
        "evaluators": [
            f"{RESULTS}/{ds}/evaluators/{f}"
            for f in cfg.get("evaluators", SCORE_EVALUATORS)
        ],
    }
    kinds = (
        cfg.get("naturalness") or {}
    )  # e.g. {lr: json, nn: pt}: naturalness/{system}.{kind}.{ext}
    inputs["naturalness"] = [
        f"{RESULTS}/{ds}/evaluators/naturalness/{wildcards.system}.{k}.{ext}"
        for k, ext in kinds.items()
    ]
    if wildcards.split == "test" and has_references(ds):
        inputs["references"] = [prepared(ds, f"references.{s}.tsv") for s in STYLES]
    if score_ours(wildcards.system) and cfg.get("attribute_hit", True):
        inputs["lists"] = [
            f"{RESULTS}/{ds}/attributes/{wildcards.split}.{s}.attributes.jsonl"
            for s in STYLES
        ]
    return inputs


def score_args(wildcards, input):
    """Optional command-line arguments of scripts/score.py."""
    args = []
    for key in ("references", "lists"):
        if key in input.keys():
            args.append(f"--{key} " + quoted(input[key]))
    return " ".join(args)


rule score:
    input:
        unpack(score_inputs),
    output:
        json=f"{RESULTS}/{{dataset}}/scores/{{system}}/{{split}}.{{checkpoint}}.json",
        tsv=f"{RESULTS}/{{dataset}}/scores/{{system}}/{{split}}.{{checkpoint}}.tsv",
    log:
        f"{RESULTS}/{{dataset}}/logs/score.{{system}}.{{split}}.{{checkpoint}}.log",
    threads: 1
    params:
        dataset_dir=lambda wildcards: f"{RESULTS}/{wildcards.dataset}",
        extra=score_args,
        options=lambda wildcards: json.dumps(
            {
                k: v
                for k, v in score_config().items()
                if k in ("cp_lexicon", "cp_seed", "gm_t")
            }
        ),
    shell:
        "python {SCRIPTS:q}/score.py --dataset-dir {params.dataset_dir:q} --system {wildcards.system}"
        " --split {wildcards.split} --checkpoint {wildcards.checkpoint}"
        " --sources {input.sources:q} --outputs {input.outputs:q}"
        " {params.extra} --options {params.options:q} --json {output.json:q} --tsv {output.tsv:q} 2> {log:q} > /dev/null"
