"""Where every artifact of the workflow lives, decided once: the folders and files of results/{dataset}, and the
wildcard constraints of the fields whose values the code fixes. rules/*.smk (which hand the scripts their
paths), tst.config, tst.data.prepare and the CLI derive theirs from here; tests/test_layout.py fails on a
`results/` path written anywhere else.

A path function called without a field leaves it a Snakemake wildcard, for a rule's output or input pattern
(`text(split="test")` -> "results/{dataset}/data/test.{style}.txt"); called with values it names the file.
The UPPER-CASE names are relative to a dataset's results folder (or to the folder they say), for code that is
given such a folder wherever it lies (`tst score --dataset-dir`, `tst transfer --dataset-dir`, tst.data.prepare).

    results/{dataset}/
      data/                 {split}.{style}.txt (model units: BPE pieces on BPE datasets), {split}.{style}.raw.txt
                            (words), {split}.{style}.entities.jsonl, references.{style}.tsv,
                            paraphrase.{style}.tsv, vocab.txt, report.json, corpus.json, ner_skipped.json,
                            bpe.model (BPE datasets)
      evaluators/           tst.names.EVALUATOR_FILES, content_words.json, naturalness/{system}.{kind}.{ext}
      attributes/           {split}.{style}.parse.jsonl, {split}.{style}.attributes.jsonl
      models/{variant}/seed{seed}/
                            checkpoints/{ckpt}.pt, transfers/{split}.{ckpt}.{style}.txt
      systems/{system}/     test.final.{style}.txt, test.final.sources.{style}.txt (external systems)
      scores/{system}/      {split}.{ckpt}.json, {split}.{ckpt}.tsv
      human/                correlation.csv, ratings_with_metrics.tsv, aggregate.json
      validity/             checks.json, gm_thresholds.json
      tables/ plots/        {name}.{ext}
      warnings.md           what the numbers warn of (tst.run_warnings)

Torch-free and cheap: imported by rules/common.smk. Not imported by the trainer (tst.train), whose code hash is
part of every checkpoint: it writes checkpoints/ and transfers/ inside the model folder it is given
(tests/test_layout.py and tests/train/test_trainer.py check that its names are these).
"""

from __future__ import annotations

from tst import names

SPLITS = names.SPLITS  # train, dev, test
SCORED_SPLITS = SPLITS[1:]  # dev, test: the splits systems are scored on (attribute hit reads their lists)

RESULTS = "results"
GPU_RATES = f"{RESULTS}/gpu_check/rates.json"  # the GPU check's rates (bench/gpu_check.py), read by tst cost
CPU_RATES = (
    "bench/rates/cpu.json"  # in the clone: dated rates of 2 CPU cores, tst cost's default without GPU_RATES
)
STYLES = ("0", "1")  # a style as file names carry it: its index in the dataset's `styles`

# ---- inside a dataset's results folder ----
DATA = "data"
EVALUATORS = "evaluators"
ATTRIBUTES = "attributes"
MODELS = "models"
SYSTEMS = "systems"
SCORES = "scores"
HUMAN = "human"
VALIDITY = "validity"
TABLES = "tables"
PLOTS = "plots"
CALIBRATION_FILE = f"{VALIDITY}/gm_thresholds.json"  # the calibrated GM's thresholds (rule gm_calibration)

# ---- inside the data folder (tst.data.prepare writes them) ----
VOCAB = "vocab.txt"
DATA_REPORT = "report.json"
# what preparing the corpus leaves for preparing its references (rule prepare_references): the corpus' report, its
# test sentences, its NER masking, the demo's own references
CORPUS_STATE = "corpus.json"
NER_SKIPPED = (
    "ner_skipped.json"  # the entities NER found that masking leaves as words (tst.nlp.ner.common_surfaces)
)
BPE_MODEL = "bpe.model"

# ---- inside other folders ----
CONTENT_WORDS = "content_words.json"  # evaluators/: the content words the evaluators may mask
CHECKPOINTS = "checkpoints"  # models/{variant}/seed{seed}/
TRANSFERS = "transfers"  # models/{variant}/seed{seed}/
CORRELATION = "correlation.csv"  # human/
RATED = "ratings_with_metrics.tsv"  # human/
AGGREGATE = "aggregate.json"  # human/
CHECKS = "checks.json"  # validity/


def _shared_pattern(files: dict[tuple[str, ...], str], fields: tuple[str, ...]) -> str:
    """The one pattern of a family of file names, each named by the values of `fields`:
    ({("cnn",): "style_cnn.pt", ("lstm",): "style_lstm.pt"}, ("kind",)) -> "style_{kind}.pt". The names are
    decided in tst.names; a rule that builds them needs them as a pattern. ValueError when they share none."""
    found = set()
    for values, name in files.items():
        for field, value in zip(fields, values):
            if name.count(value) != 1:
                raise ValueError(f"{name}: does not name its {field} {value!r} once")
            name = name.replace(value, "{" + field + "}")
        found.add(name)
    if len(found) != 1:
        raise ValueError(f"{sorted(files.values())} share no one pattern of {fields}: {sorted(found)}")
    return found.pop()


# ---- wildcard patterns of file names (the wildcard names are the rules') ----
CLASSIFIER = _shared_pattern({(k,): f for k, f in names.CLASSIFIERS.items()}, ("kind",))  # style_{kind}.pt
LANGUAGE_MODEL = _shared_pattern({(k,): f for k, f in names.LANGUAGE_MODELS.items()}, ("lm",))  # lm_{lm}.pt
EMBEDDING = _shared_pattern({(k,): f for k, f in names.EMBEDDINGS.items()}, ("emb",))  # {emb}.kv
NATURALNESS = _shared_pattern(  # naturalness/{system}.{kind}.{ext}
    {(k, e): names.naturalness_file("{system}", k) for k, e in names.NATURALNESS_KINDS.items()},
    ("kind", "ext"),
)
_SEED = "987654321"
OURS = _shared_pattern({(_SEED,): names.system_name("{variant}", _SEED)}, ("seed",))  # {variant}.seed{seed}

# ---- wildcard constraints of the fields whose values the code fixes (rules/common.smk constrains dataset,
# variant and system, which the config fixes) ----
CONSTRAINTS = {
    "split": names.alternatives(SPLITS),
    "style": names.alternatives(STYLES),
    "seed": r"\d+",
    "name": names.SAFE_NAME.pattern,  # any safe name (tst.names.is_safe_name)
    "classifier": names.alternatives(names.CLASSIFIERS),
    "lm": names.alternatives(names.LANGUAGE_MODELS),
    "embedding": names.alternatives(names.EMBEDDINGS),
    "naturalness_kind": names.alternatives(names.NATURALNESS_KINDS),
    "naturalness_ext": names.alternatives(set(names.NATURALNESS_KINDS.values())),
}


def _in(folder: str, file: str | None) -> str:
    return f"{folder}/{file}" if file else folder


# ---- folders of a dataset (with `file`: that file in it) ----
def root(dataset="{dataset}") -> str:
    return f"{RESULTS}/{dataset}"


def data(dataset="{dataset}", file: str | None = None) -> str:
    return _in(f"{root(dataset)}/{DATA}", file)


def evaluators(dataset="{dataset}", file: str | None = None) -> str:
    return _in(f"{root(dataset)}/{EVALUATORS}", file)


def attributes(dataset="{dataset}", file: str | None = None) -> str:
    return _in(f"{root(dataset)}/{ATTRIBUTES}", file)


def model(dataset="{dataset}", variant="{variant}", seed="{seed}") -> str:
    """One trained model of ours (variant x seed)."""
    return f"{root(dataset)}/{MODELS}/{variant}/seed{seed}"


def system_folder(dataset="{dataset}", system="{system}") -> str:
    """An external system's imported (or derived) outputs."""
    return f"{root(dataset)}/{SYSTEMS}/{system}"


def scores(dataset="{dataset}", file: str | None = None) -> str:
    return _in(f"{root(dataset)}/{SCORES}", file)


def human(dataset="{dataset}", file: str | None = None) -> str:
    return _in(f"{root(dataset)}/{HUMAN}", file)


def validity(dataset="{dataset}", file: str | None = None) -> str:
    return _in(f"{root(dataset)}/{VALIDITY}", file)


def calibration(dataset="{dataset}") -> str:
    return f"{root(dataset)}/{CALIBRATION_FILE}"


def table(dataset="{dataset}", name="{name}", ext="{ext}") -> str:
    return f"{root(dataset)}/{TABLES}/{name}.{ext}"


def warnings(dataset="{dataset}") -> str:
    """What the dataset's numbers warn of (tst.run_warnings; rule report_tables writes it)."""
    return f"{root(dataset)}/warnings.md"


def plot(dataset="{dataset}", name="{name}", ext="{ext}") -> str:
    return f"{root(dataset)}/{PLOTS}/{name}.{ext}"


# ---- the prepared data ----
def text_file(split="{split}", style="{style}", raw: bool = False) -> str:
    """Model-unit text (BPE pieces on BPE datasets, else words); raw: the word-level text (metrics, lexicons
    and parses read it)."""
    return f"{split}.{style}.raw.txt" if raw else f"{split}.{style}.txt"


def entities_file(split="{split}", style="{style}") -> str:
    return f"{split}.{style}.entities.jsonl"


def references_file(style="{style}") -> str:
    return f"references.{style}.tsv"


def paraphrase_file(style="{style}") -> str:
    return f"paraphrase.{style}.tsv"


def text(dataset="{dataset}", split="{split}", style="{style}", raw: bool = False) -> str:
    return data(dataset, text_file(split, style, raw))


def entities(dataset="{dataset}", split="{split}", style="{style}") -> str:
    return data(dataset, entities_file(split, style))


def references(dataset="{dataset}", style="{style}") -> str:
    return data(dataset, references_file(style))


def paraphrase(dataset="{dataset}", style="{style}") -> str:
    return data(dataset, paraphrase_file(style))


# ---- attribute words ----
def parse(dataset="{dataset}", split="{split}", style="{style}") -> str:
    return attributes(dataset, f"{split}.{style}.parse.jsonl")


def attribute_lists(dataset="{dataset}", split="{split}", style="{style}") -> str:
    return attributes(dataset, f"{split}.{style}.attributes.jsonl")


# ---- system outputs: ours under models/, external ones under systems/ ----
def output_file(split="{split}", ckpt="{ckpt}", style="{style}") -> str:
    return f"{split}.{ckpt}.{style}.txt"


def sources_file(split="{split}", ckpt="{ckpt}", style="{style}") -> str:
    return f"{split}.{ckpt}.sources.{style}.txt"


def checkpoint(dataset="{dataset}", variant="{variant}", seed="{seed}", ckpt="{ckpt}") -> str:
    return f"{model(dataset, variant, seed)}/{CHECKPOINTS}/{ckpt}.pt"


def transfer(
    dataset="{dataset}", variant="{variant}", seed="{seed}", split="{split}", ckpt="{ckpt}", style="{style}"
):
    """One of our model's transfers (dev: written while it trains; test: rule transfer_test)."""
    return f"{model(dataset, variant, seed)}/{TRANSFERS}/{output_file(split, ckpt, style)}"


def system_output(dataset="{dataset}", system="{system}", style="{style}", split="test", ckpt=names.FINAL):
    """An external system's outputs (they publish test outputs only: test.final)."""
    return f"{system_folder(dataset, system)}/{output_file(split, ckpt, style)}"


def system_sources(dataset="{dataset}", system="{system}", style="{style}", split="test", ckpt=names.FINAL):
    """The sources an external system's outputs rewrite, line by line."""
    return f"{system_folder(dataset, system)}/{sources_file(split, ckpt, style)}"


def outputs(dataset: str, system: str, split: str, ckpt: str, style) -> str:
    """Any system's outputs: ours (`M0.seed1`) or an external one."""
    ours = names.parse_system(system)
    if ours:
        return transfer(dataset, *ours, split, ckpt, style)
    return system_output(dataset, system, style, split, ckpt)


def sources(dataset: str, system: str, split: str, ckpt: str, style) -> str:
    """The sources any system's outputs rewrite: the word-level data for ours, the imported ones for others."""
    if names.parse_system(system):
        return text(dataset, split, style, raw=True)
    return system_sources(dataset, system, style, split, ckpt)


# ---- scores ----
def score(dataset="{dataset}", system="{system}", split="{split}", ckpt="{ckpt}", ext="json") -> str:
    """One run's score file: json (corpus scores, metric variants, evaluator hashes) or tsv (per sentence)."""
    return scores(dataset, f"{system}/{split}.{ckpt}.{ext}")
