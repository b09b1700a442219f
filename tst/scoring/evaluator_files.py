"""The evaluator files of one dataset's evaluators folder, each loaded at most once (Evaluators), with the
loader of each kind of file (loader_for); a file that cannot be loaded skips the metrics that need it."""

from __future__ import annotations

import logging
import pickle
from pathlib import Path

from tst.data.bpe import BPE, ModelUnits, is_piece_vocab
from tst.evaluators.acceptability import load_acceptability
from tst.evaluators.classifiers import load_classifier
from tst.evaluators.embeddings import load_embeddings
from tst.evaluators.idf import load_idf
from tst.evaluators.language_model import load_lm
from tst.evaluators.naturalness import load_naturalness
from tst.evaluators.style_lexicon import load_style_lexicon
from tst.io import InputError, read_json
from tst.layout import BPE_MODEL  # also its name among the evaluator files a score file records
from tst.layout import data as data_folder
from tst.metrics.registry import IDF, STYLE_LEXICON, Skip
from tst.names import ACCEPTABILITY, CLASSIFIERS, EMBEDDINGS, LANGUAGE_MODELS
from tst.scoring.memory import is_out_of_memory

log = logging.getLogger(__name__)


# What loading a broken evaluator file raises (truncated zip or pickle, bad JSON, wrong keys or shapes).
LOAD_ERRORS = (
    OSError,
    EOFError,
    RuntimeError,
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    pickle.UnpicklingError,
)


def loader_for(name: str):
    """The function that loads evaluator file `name` (relative to the evaluators folder; docs/interfaces.md).
    Looked up when called, so tests can replace this module's loaders."""
    if name.startswith("naturalness/"):
        return load_naturalness
    if name in CLASSIFIERS.values():
        return load_classifier
    if name in LANGUAGE_MODELS.values():
        return load_lm
    if name == ACCEPTABILITY:
        return load_acceptability
    if name in EMBEDDINGS.values() or name.endswith(".kv"):
        return load_embeddings
    if name == IDF:
        return load_idf
    if name == STYLE_LEXICON:
        return load_style_lexicon
    if name.endswith(".json"):
        return read_json
    raise ValueError(f"no loader for evaluator file {name!r}")


class Evaluators:
    """The evaluator files of one folder, each loaded at most once however many score_system calls use
    them (a workflow job scores every checkpoint of a system with one instance); `used` = the files loaded
    so far, name -> path.

    bpe: the dataset's BPE model (results/{dataset}/data/bpe.model) when it has one. Scored text is word
    level; a classifier or LM whose vocabulary is of BPE pieces is fed it encoded with this model (the form
    it was trained on), and is skipped with the fix as reason when none is given."""

    def __init__(self, directory, bpe=None):
        self.dir = Path(directory)
        self.bpe = Path(bpe) if bpe else None
        self.used: dict[str, Path] = {}
        self._cache: dict[str, object] = {}
        self._broken: dict[str, str] = {}  # file that failed to load -> the reason, so it is tried once

    def path(self, name: str) -> Path:
        return self.dir / name

    def has(self, name: str) -> bool:
        return self.path(name).is_file()

    def load(self, name: str):
        """The loaded evaluator file; Skip (the metrics that need it are skipped with the reason) when it
        cannot be loaded, e.g. a truncated or corrupt checkpoint."""
        if name in self._broken:
            raise Skip(self._broken[name])
        if name not in self._cache:
            log.info("loading evaluator %s", self.path(name))
            try:
                self._cache[name] = self._in_units(name, loader_for(name)(self.path(name)))
            except InputError as e:  # a file of the wrong shape: the message names it, what is wrong, the fix
                self._broken[name] = f"cannot load evaluator file {name}: {e}"
                log.warning("%s", self._broken[name])
                raise Skip(self._broken[name]) from None
            except LOAD_ERRORS as e:  # a file that cannot be read: its metrics are skipped, the others go on
                if is_out_of_memory(e):  # not a broken file: score_system skips the metric as out of memory
                    raise
                first = (str(e).strip().splitlines() or [""])[0][:200]
                self._broken[name] = (
                    f"cannot load evaluator file {name} ({type(e).__name__}: {first}); rebuild it"
                )
                log.warning("%s: %s", self.path(name), self._broken[name])
                raise Skip(self._broken[name]) from None
            self.used[name] = self.path(name)
        return self._cache[name]

    def _in_units(self, name: str, obj):
        """A style classifier or LM wrapped to read word-level text in its own units (naturalness classifiers
        are trained on words: as they are)."""
        itos = getattr(getattr(obj, "vocab", None), "itos", None)
        if itos is None or name not in (*CLASSIFIERS.values(), *LANGUAGE_MODELS.values(), ACCEPTABILITY):
            return obj
        if not is_piece_vocab(itos):
            return ModelUnits(obj)
        if self.bpe is None:
            raise Skip(
                f"{self.path(name)} was trained on BPE pieces: give the dataset's {BPE_MODEL} "
                f"({data_folder('<dataset>', BPE_MODEL)}) to encode the word-level text as in training"
            )
        if BPE_MODEL not in self._cache:
            self._cache[BPE_MODEL] = BPE(self.bpe)
            self.used[BPE_MODEL] = self.bpe
        return ModelUnits(obj, self._cache[BPE_MODEL])

    def start_run(self) -> None:
        """Called at the start of each score run (tst.scoring.run.score): every loaded evaluator that keeps
        per-text values computed in bf16 (tst.evaluators.classifiers.MiniLMTextClassifier, under ModelUnits or
        tst.evaluators.acceptability.Acceptability) forgets them, so a run scores as it would alone: a workflow
        job's every checkpoint as `tst score` scores that checkpoint's files."""
        for obj in self._cache.values():
            for inner in _inside(obj):
                if hasattr(inner, "start_run"):
                    inner.start_run()

    def units(self) -> dict[str, ModelUnits]:
        """The loaded classifiers and LMs, name -> ModelUnits (their <unk> counts)."""
        return {k: v for k, v in self._cache.items() if isinstance(v, ModelUnits)}


def _inside(obj) -> list:
    """An evaluator object and what it wraps: ModelUnits' model, Acceptability's classifier."""
    out = [obj]
    for name in ("model", "classifier"):
        inner = getattr(out[-1], name, None)
        if inner is not None:
            out.append(inner)
    return out
