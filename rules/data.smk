# Data preparation: released corpora (or the embedded demo corpus) -> results/{dataset}/data/,
# external system outputs -> results/{dataset}/systems/{system}/, and (with internet) missing corpus files.
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
        dataset=data_dataset_name,
        dataset_config=data_dataset_config,
        data_dir=data_dir(),
        nlp=config.get("nlp", {}),
        out_dir=data_out_dir,
    script:
        "../scripts/prepare_data.py"


rule import_system:
    input:
        data_system_file,
    output:
        outputs=f"{RESULTS}/{{dataset}}/systems/{{system}}/test.final.{{style}}.txt",
        sources=f"{RESULTS}/{{dataset}}/systems/{{system}}/test.final.sources.{{style}}.txt",
    log:
        "logs/import_system/{dataset}/{system}.{style}.log",
    wildcard_constraints:
        system=f"(?!(?:{'|'.join(DERIVED_SYSTEMS)})/)[^/]+",
    threads: 1
    params:
        dataset=data_dataset_name,
        system=data_system_name,
        style=data_style_index,
        spec=data_system_spec,
        dataset_config=data_dataset_config,
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
        url=data_url,
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
