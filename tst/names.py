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


# ---- our trained systems: variant M0, seed 1 -> system "M0.seed1" ----

_OURS = re.compile(r"(.+)\.seed(\d+)")


def system_name(variant: str, seed: int | str) -> str:
    return f"{variant}.seed{int(seed)}"


def parse_system(system: str) -> tuple[str, int] | None:
    """`M0.seed1` -> ("M0", 1); None for an external system (`mit`, `human`, `source`)."""
    m = _OURS.fullmatch(system)
    return (m.group(1), int(m.group(2))) if m else None


# ---- checkpoints: one every half epoch, `ep0.5`, `ep1.0`, ...; external systems have only `final` ----

FINAL = "final"


def epoch_label(epoch: float) -> str:
    return f"ep{float(epoch):.1f}"


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
            f"config key transfer.epochs: {epochs!r} is not a whole number of epochs >= 1 (a "
            f"checkpoint is written every half epoch anyway); use e.g. 1, 2 or 20"
        )
    return int(epochs)


def checkpoint_labels(epochs: int) -> list[str]:
    """Half-epoch checkpoint labels of a run of `epochs` whole epochs: ep0.5, ep1.0, ..., ep{epochs}.0."""
    return [epoch_label(k / 2) for k in range(1, 2 * whole_epochs(epochs) + 1)]


def parse_checkpoint(label: str) -> float | None:
    """`ep1.5` -> 1.5; `final` (or anything else) -> None."""
    m = re.fullmatch(r"ep(\d+(?:\.\d+)?)", label)
    return float(m.group(1)) if m else None


# ---- evaluator files of a dataset (results/{dataset}/evaluators/), what the metrics read ----

CLASSIFIERS = {"cnn": "style_cnn.pt", "lstm": "style_lstm.pt"}
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
