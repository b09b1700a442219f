# Data preparation: released corpora (or the embedded demo corpus) -> results/{dataset}/data/,
# external system outputs -> results/{dataset}/systems/{system}/, and (with internet) missing corpus files.
import os
import re

from tst.data.prepare import expected_outputs
from tst.data.sources import corpus_files, missing_downloads, style_path, url_for

# ---- input functions (the lead may move them to common.smk) ----

# the files every dataset gets (bpe.model, BPE datasets only, is written beside them but not declared)
DATA_FILES = expected_outputs({"styles": ["0", "1"], "bpe": {"enabled": False}})


def data_corpus_inputs(wildcards):
    """Released files prepare_data reads (none for the generated demo corpus)."""
    cfg = dataset_config(wildcards.dataset)
    if cfg["source"]["kind"] == "demo":
        return []
    return [os.path.join(data_dir(), f) for f in corpus_files(cfg)]


def data_system_file(wildcards):
    cfg = dataset_config(wildcards.dataset)
    return os.path.join(
        data_dir(),
        style_path(
            cfg["systems"][wildcards.system]["file"],
            int(wildcards.style),
            cfg["styles"],
        ),
    )


def data_missing_regex():
    """Only files that are missing and have a URL can be downloaded; "(?!)" matches nothing."""
    missing = missing_downloads(config["datasets"], data_dir())
    return "|".join(re.escape(p) for p in missing) or "(?!)"


def data_system_names(dataset):
    return list(dataset_config(dataset).get("systems") or {})


# ---- rules ----
# download_data only ever produces configured files that are missing (never re-fetches existing data).


rule prepare_data:
    input:
        data_corpus_inputs,
    output:
        [f"{RESULTS}/{{dataset}}/data/{name}" for name in DATA_FILES],
    log:
        "logs/prepare_data/{dataset}.log",
    benchmark:
        "benchmarks/prepare_data/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
    params:
        dataset=lambda wc: wc.dataset,
        dataset_config=lambda wc: dataset_config(wc.dataset),
        data_dir=data_dir(),
        nlp=config.get("nlp", {}),
        out_dir=lambda wc: f"{RESULTS}/{wc.dataset}/data",
    script:
        "../scripts/prepare_data.py"


rule import_system:
    input:
        data_system_file,
    wildcard_constraints:
        system=f"(?!(?:{'|'.join(DERIVED_SYSTEMS)})/)[^/]+",
    output:
        outputs=f"{RESULTS}/{{dataset}}/systems/{{system}}/test.final.{{style}}.txt",
        sources=f"{RESULTS}/{{dataset}}/systems/{{system}}/test.final.sources.{{style}}.txt",
    log:
        "logs/import_system/{dataset}/{system}.{style}.log",
    threads: 1
    params:
        dataset=lambda wc: wc.dataset,
        system=lambda wc: wc.system,
        style=lambda wc: int(wc.style),
        spec=lambda wc: dataset_config(wc.dataset)["systems"][wc.system],
        dataset_config=lambda wc: dataset_config(wc.dataset),
        data_dir=data_dir(),
    script:
        "../scripts/import_system.py"


rule download_data:
    output:
        os.path.join(data_dir(), "{datapath}"),
    log:
        "logs/download_data/{datapath}.log",
    wildcard_constraints:
        datapath=data_missing_regex(),
    localrule: True
    params:
        url=lambda wc: url_for(config["datasets"], wc.datapath),
    script:
        "../scripts/download_data.py"


# `source` = the untransferred input; `reference` = the prepared human references as a system (datasets
# whose config has no `human` system). Both are scored like any system (see dataset_systems in common.smk).
rule untransferred_system:
    input:
        text=f"{RESULTS}/{{dataset}}/data/test.{{style}}.raw.txt",
    output:
        outputs=f"{RESULTS}/{{dataset}}/systems/source/test.final.{{style}}.txt",
        sources=f"{RESULTS}/{{dataset}}/systems/source/test.final.sources.{{style}}.txt",
    log:
        "logs/untransferred_system/{dataset}.{style}.log",
    localrule: True
    script:
        "../scripts/derived_systems.py"


rule reference_system:
    input:
        references=f"{RESULTS}/{{dataset}}/data/references.{{style}}.tsv",
    output:
        outputs=f"{RESULTS}/{{dataset}}/systems/reference/test.final.{{style}}.txt",
        sources=f"{RESULTS}/{{dataset}}/systems/reference/test.final.sources.{{style}}.txt",
    log:
        "logs/reference_system/{dataset}.{style}.log",
    localrule: True
    script:
        "../scripts/derived_systems.py"
