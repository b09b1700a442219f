# Data: released corpora (or the embedded demo corpus) -> layout.data() (the corpus, then its references);
# external system outputs
# -> layout.system_folder(); missing data files from their public URL (needs internet) or the mirror
# (data_mirror / $TST_MIRROR), checked by sha256; system files cut out of a released original (extract).
# Datasets with BPE also get bpe.model (rule prepare_data_bpe), which scoring reads.
BPE_DATASETS = {
    d for d, c in config["datasets"].items() if (c.get("bpe") or {}).get("enabled")
}


rule prepare_data:
    input:
        corpus_inputs,
    output:
        [layout.data(file=name) for name in CORPUS_FILES],
    log:
        "logs/prepare_data/{dataset}.log",
    benchmark:
        "benchmarks/prepare_data/{dataset}.tsv"
    wildcard_constraints:
        dataset=names.alternatives(set(config["datasets"]) - BPE_DATASETS),
    priority: 20  # every evaluator waits for it: run it before the jobs that can start without it
    conda:
        env("data")
    threads: 1
    resources:
        mem_mb=4000,
    params:
        dataset=lookup(dpath="corpus/{dataset}", within=TABLE),
        nlp=config.get("nlp") or {},
        code=code("prepare_data.py"),
    script:
        "../scripts/prepare_data.py"


use rule prepare_data as prepare_data_bpe with:
    output:
        [layout.data(file=name) for name in CORPUS_FILES + [layout.BPE_MODEL]],
    wildcard_constraints:
        dataset=names.alternatives(BPE_DATASETS),


# The references apart from the corpus (tst.data.references): a changed reference file reruns this job and what
# reads the references (the reference system, the scores, the tables), never the corpus or an evaluator.
from tst.data.corpus import reference_outputs

REFERENCE_FILES = reference_outputs({"styles": STYLES})


rule prepare_references:
    input:
        files=lambda w: rule_inputs.reference_paths(config, w.dataset, DATA_DIR),
        corpus=layout.data(file=layout.CORPUS_STATE),
    output:
        [layout.data(file=name) for name in REFERENCE_FILES],
    log:
        "logs/prepare_references/{dataset}.log",
    priority: 20
    localrule: True  # a second on the references (a cluster run submits no job for it)
    conda:
        env("data")
    threads: 1
    resources:
        mem_mb=2000,
    params:
        dataset=lookup(dpath="references/{dataset}", within=TABLE),
        nlp=config.get("nlp") or {},
        code=code("prepare_references.py"),
    script:
        "../scripts/prepare_references.py"


rule import_system:
    input:
        system_file,
    output:
        outputs=layout.system_output(),
        sources=layout.system_sources(),
    log:
        "logs/import_system/{dataset}/{system}.{style}.log",
    wildcard_constraints:
        system=configured_systems(),
    priority: 20  # a second each; the validity checks wait for every system, so none may be left for last
    conda:
        env("data")
    params:
        spec=lambda w: stages.system_import_spec(config, w.dataset, w.system),
        dataset=lookup(dpath="corpus/{dataset}", within=TABLE),
        code=code("import_system.py"),
    script:
        "../scripts/import_system.py"


# GLUE's SST-2 (evaluators.sst2) when a style classifier reads it and it is missing: the training file out of GLUE's
# zip (or the mirror's copy of the data folder), checked by size and sha256.
SST2_DOWNLOAD = rule_inputs.sentence_labels_download(config, DATA_DIR)


if SST2_DOWNLOAD:

    rule download_sentence_labels:
        output:
            f"{DATA_DIR}/{SST2_DOWNLOAD['file']}",
        log:
            "logs/download_sentence_labels.log",
        localrule: True
        conda:
            env("data")
        params:
            url=fetch_url(SST2_DOWNLOAD["url"], SST2_DOWNLOAD["file"], MIRROR),
            whole_file=bool(MIRROR),
            member=SST2_DOWNLOAD["member"],
            sha256=SST2_DOWNLOAD["sha256"],
            size=SST2_DOWNLOAD["size"],
            code=code("download_sentence_labels.py"),
        script:
            "../scripts/download_sentence_labels.py"


rule download_data:
    output:
        f"{DATA_DIR}/{{datapath}}",
    log:
        "logs/download_data/{datapath}.log",
    wildcard_constraints:
        datapath=names.alternatives(DOWNLOADS),
    localrule: True
    conda:
        env("data")
    params:
        url=download_url,
        sha256=download_sha256,
        code=code("download_data.py"),
    script:
        "../scripts/download_data.py"


rule extract_system:
    input:
        extract_original,
    output:
        f"{DATA_DIR}/{{datapath}}",
    log:
        "logs/extract_system/{datapath}.log",
    wildcard_constraints:
        datapath=names.alternatives(EXTRACTS),
    localrule: True
    conda:
        env("data")
    params:
        spec=lambda w: EXTRACTS[w.datapath][1],
        key=lambda w: f"extract of {w.datapath}",
        code=code("extract_system.py"),
    script:
        "../scripts/extract_system.py"


# `source`: the untransferred input; `reference`: the human references as a system (datasets whose config
# has no `human` system). Both are scored like any system.
rule untransferred_system:
    input:
        text=layout.text(split="test", raw=True),
    output:
        outputs=layout.system_output(system="source"),
        sources=layout.system_sources(system="source"),
    log:
        "logs/untransferred_system/{dataset}.{style}.log",
    localrule: True
    conda:
        env("data")
    params:
        code=code("derived_systems.py"),
    script:
        "../scripts/derived_systems.py"


rule reference_system:
    input:
        references=layout.references(),
    output:
        outputs=layout.system_output(system="reference"),
        sources=layout.system_sources(system="reference"),
    log:
        "logs/reference_system/{dataset}.{style}.log",
    localrule: True
    conda:
        env("data")
    params:
        code=code("derived_systems.py"),
    script:
        "../scripts/derived_systems.py"


# Sanity baselines (tst.baselines; config `baselines`): outputs that need no training, for the validity table.
# Each style's test sources -> the baseline's outputs; target-style training sentences where it reads them.
from tst import baselines


rule baseline_system:
    input:
        unpack(lambda w: rule_inputs.baseline_files(w.dataset, w.system, int(w.style))),
    output:
        outputs=layout.system_output(),
        sources=layout.system_sources(),
    log:
        "logs/baseline_system/{dataset}/{system}.{style}.log",
    wildcard_constraints:
        system=names.alternatives(baselines.BUILT),
    conda:
        env("score")
    params:
        seed=stages.baseline_seed(config),
        code=code("baseline_system.py"),
    script:
        "../scripts/baseline_system.py"
