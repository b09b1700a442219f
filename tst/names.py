"""How things are named, decided once: safe names, our systems (`M0.seed1`), checkpoint labels (`ep1.5`), the
evaluator files of a dataset. Torch-free; imported by rules/common.smk, the scripts, the trainer and the report.
"""

from __future__ import annotations

import re

# Dataset, variant and system names become folder names, wildcards and table rows: letters, digits, `_`, `-`
# and `.` only, starting with a letter or digit (no `/`, no `..`, nothing a shell would interpret).
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def is_safe_name(name) -> bool:
    return isinstance(name, str) and bool(SAFE_NAME.fullmatch(name)) and ".." not in name


# The splits of every dataset, as file names carry them.
SPLITS = ("train", "dev", "test")


# ---- our trained systems: variant M0, seed 1 -> system "M0.seed1" ----

_OURS = re.compile(r"(.+)\.seed(\d+)")


def system_name(variant: str, seed: int | str) -> str:
    return f"{variant}.seed{int(seed)}"


# One name per system in every table, plot and caption: the untransferred input (also the copy baseline) is
# `source`, the dataset's human references `reference` (Li et al.'s Yelp release names them `human`, the folder
# and the human ratings keep that name). Every other system is shown as it is named.
DISPLAY_NAMES = {"human": "reference"}


def display_name(system: str) -> str:
    """How tables, plots and captions name a system (DISPLAY_NAMES; `M0.seed1`, `mit`, `source` as they are)."""
    return DISPLAY_NAMES.get(system, system)


def parse_system(system: str) -> tuple[str, int] | None:
    """`M0.seed1` -> ("M0", 1); None for an external system (`mit`, `human`, `source`)."""
    m = _OURS.fullmatch(system)
    return (m.group(1), int(m.group(2))) if m else None


# ---- checkpoints: transfer.checkpoints_per_epoch of them per epoch (default 2: `ep0.5`, `ep1.0`, ...; 8:
# `ep0.125`, `ep0.25`, ...); external systems have only `final` ----

FINAL = "final"


def epoch_label(epoch: float) -> str:
    """`ep` + the epoch with one decimal when that is exact (ep0.5, ep2.0), else to 3 decimals without trailing
    zeros (ep0.125, ep0.25, ep0.333 for a third)."""
    e = float(epoch)
    if abs(e * 10 - round(e * 10)) < 1e-9:
        return f"ep{e:.1f}"
    return "ep" + f"{e:.3f}".rstrip("0")


def whole_epochs(epochs) -> int:
    """The one rule for transfer.epochs (the schema's `integer, minimum 1` says the same): a whole number >= 1
    (2 or 2.0, not 1.5, 0 or true), as an int; ValueError naming the key otherwise."""
    if (
        isinstance(epochs, bool)
        or not isinstance(epochs, (int, float))
        or epochs != int(epochs)
        or epochs < 1
    ):
        raise ValueError(
            f"config key transfer.epochs: {epochs!r} is not a whole number of epochs >= 1 (checkpoints "
            f"within an epoch: transfer.checkpoints_per_epoch); use e.g. 1, 2 or 20"
        )
    return int(epochs)


def per_epoch(n) -> int:
    """The one rule for transfer.checkpoints_per_epoch: a whole number >= 1 (bool excluded); ValueError naming
    the key otherwise."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(
            f"config key transfer.checkpoints_per_epoch: {n!r} is not a whole number >= 1; use e.g. 2 (every "
            f"half epoch, the default) or 8"
        )
    return n


def checkpoint_labels(epochs: int, checkpoints_per_epoch: int = 2) -> list[str]:
    """Checkpoint labels of a run of `epochs` whole epochs with `checkpoints_per_epoch` evenly spaced
    checkpoints per epoch: ep0.5, ep1.0, ..., ep{epochs}.0 for 2."""
    k = per_epoch(checkpoints_per_epoch)
    return [epoch_label(j / k) for j in range(1, k * whole_epochs(epochs) + 1)]


def check_epochs(max_epochs, evals_per_epoch: int) -> None:
    """max_epochs may be fractional (0.5: half an epoch's batches) when training ends at a dev evaluation:
    max_epochs x evals_per_epoch must be a whole number."""
    if max_epochs <= 0 or abs(max_epochs * evals_per_epoch - round(max_epochs * evals_per_epoch)) > 1e-9:
        raise ValueError(
            f"max_epochs {max_epochs} does not end at a dev evaluation ({evals_per_epoch} per epoch): use a "
            f"multiple of 1/{evals_per_epoch}, or more evals_per_epoch"
        )


def checkpoint_steps(steps_per_epoch: int, checkpoints_per_epoch: int) -> dict[int, float]:
    """{update within the epoch (1-based): the epoch fraction of its checkpoint}: checkpoint j of k is written
    after update ceil(j x steps_per_epoch / k) of the epoch (for k = 2: the half and the end). An epoch of
    fewer updates than k has fewer checkpoints: where two fall on one update, the later fraction is kept."""
    k = per_epoch(checkpoints_per_epoch)
    return {-(-j * steps_per_epoch // k): j / k for j in range(1, k + 1)}


def parse_checkpoint(label: str) -> float | None:
    """`ep1.5` -> 1.5; `final` (or anything else) -> None."""
    m = re.fullmatch(r"ep(\d+(?:\.\d+)?)", label)
    return float(m.group(1)) if m else None


# ---- evaluator files of a dataset (results/{dataset}/evaluators/), what the metrics read ----

# cnn: Kim CNN (Pang & Gimpel's Acc); lstm: Fu et al.'s LSTM-sigmoid (transfer strength); minilm: all-MiniLM-L6-v2
# fine-tuned as the style classifier (ours: the default GM's style factor, docs/style_and_gm.md)
CLASSIFIERS = {"cnn": "style_cnn.pt", "lstm": "style_lstm.pt", "minilm": "style_minilm.pt"}
LANGUAGE_MODELS = {"joint": "lm_joint.pt", "style0": "lm_style0.pt", "style1": "lm_style1.pt"}
EMBEDDINGS = {"glove": "glove.kv", "word2vec": "word2vec.kv", "word2vec_masked": "word2vec_masked.kv"}
ACCEPTABILITY = "acceptability.pt"  # real-vs-corrupted sentence classifier (tst.evaluators.acceptability)
EVALUATOR_FILES = [
    *CLASSIFIERS.values(),
    *LANGUAGE_MODELS.values(),
    ACCEPTABILITY,
    *EMBEDDINGS.values(),
    "idf.json",
    "style_lexicon.json",
]
SBERT_SOURCES = "sbert_sources"  # sbert_sources.{split}.npy / .txt: a split's sentence embeddings (preloaded)


def sbert_sources_file(split: str, ext: str) -> str:
    """The embeddings (ext npy) or their texts (ext txt) of a split's sentences, in the evaluators folder."""
    return f"{SBERT_SOURCES}.{split}.{ext}"


NATURALNESS_KINDS = {"lr": "json", "nn": "pt"}  # naturalness/{system}.{kind}.{ext}


def naturalness_file(system: str, kind: str) -> str:
    """Path of a system's naturalness classifier, relative to the evaluators folder."""
    return f"naturalness/{system}.{kind}.{NATURALNESS_KINDS[kind]}"


# ---- corpus files: the style of `test.0.txt`, `test.0.raw.txt` (BPE datasets' word-level text), `test.1` ----

_STYLE_OF_FILE = re.compile(r"\.([01])(?:\.raw)?(?:\.txt)?$")


def style_of_file(path) -> int | None:
    """The style (0/1) a file name carries in its last `.0`/`.1` part, before an optional `.raw` and `.txt`
    (`test.1.txt`, `test.1.raw.txt`, `test.ep1.0.1.txt`, `reference.1`); None when it carries none."""
    m = _STYLE_OF_FILE.search(str(path))
    return int(m.group(1)) if m else None


def alternatives(values) -> str:
    """A wildcard constraint matching exactly these names (escaped); one that matches nothing when empty."""
    return "|".join(re.escape(v) for v in sorted(values)) or "(?!)"
