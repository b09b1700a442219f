"""Score one system's transfers with every metric of the registry (tst.metrics.registry) whose evaluator is
available, on aligned lists in memory: score_system, one loop over the registry's computed metrics, each
evaluator file loaded once (Evaluators); a metric that cannot be computed (a missing input or file, a broken
file, out of memory) is skipped with its reason (Scores.skipped). Reading the input files and writing the score
files: tst.score.
"""

from __future__ import annotations

import gc
import logging
import pickle
import sys
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
from tst.metrics.registry import (
    IDF,
    INPUTS,
    METRICS,
    STYLE_LEXICON,
    Context,
    ScoreOptions,
    Skip,
    check_keys,
    scored_keys,
)
from tst.names import ACCEPTABILITY, CLASSIFIERS, EMBEDDINGS, LANGUAGE_MODELS

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


class Scores(dict):
    """dict[str, MetricResult] plus what was skipped (metric -> reason) and the evaluator files used."""

    def __init__(self):
        super().__init__()
        self.skipped: dict[str, str] = {}
        self.evaluators: dict[str, Path] = {}  # file name relative to the evaluators dir -> path
        self.units: dict[str, dict] = {}  # classifier / LM file -> units fed and their <unk> count
        self.n_empty: int | None = None  # outputs with no token (set by score_system)


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

    def units(self) -> dict[str, ModelUnits]:
        """The loaded classifiers and LMs, name -> ModelUnits (their <unk> counts)."""
        return {k: v for k, v in self._cache.items() if isinstance(v, ModelUnits)}


def _why_not(metric, ctx: Context, ev: Evaluators) -> str | None:
    """Why `metric` cannot be computed here (a missing input or evaluator file), or None."""
    for name in metric.inputs:
        if getattr(ctx, name) is None:
            return INPUTS[name]
    missing = [f for f in metric.files(ctx.system, ctx.options) if not ev.has(f)]
    return f"missing evaluator file(s): {', '.join(missing)}" if missing else None


def score_system(
    sources,
    outputs,
    source_styles,
    evaluators,
    references=None,
    lists=None,
    *,
    system: str | None = None,
    options: ScoreOptions | dict | None = None,
    only=None,
    progress: bool = False,
) -> Scores:
    """Every computed (non-derived) metric of the registry that is on (by default, or named in the option
    extra_metrics; tst.metrics.registry.scored_keys) whose inputs and evaluator files exist; the rest go to
    `.skipped` with a reason.

    sources, outputs: aligned lists of tokenized strings; source_styles: the style (0/1) of each source
    (target = 1 - style); evaluators: an Evaluators (reuse one across calls) or the evaluators folder;
    references: per sentence a list of reference strings (None where a sentence has none), or None; lists:
    per-source attribute lists for attribute hit (Yu et al. 2021), or None; system: names the naturalness
    classifiers (tst.names.naturalness_file); options: the scoring options, a ScoreOptions (resolved once by the
    caller and passed down as it is) or their dict ({"cp_lexicon": "vader" | "style_lexicon" | "none",
    "cp_seed": int, ...}, over tst.metrics.registry.DEFAULT_OPTIONS; resolved here); only: optional collection of metric keys
    (instead of those on, off-by-default ones included);
    progress: a progress bar on stderr (`tst score` on a terminal). An evaluator file that cannot be loaded
    skips the metrics that need it (reason in `.skipped`); the others are computed.
    """
    n = len(outputs)
    if n == 0:
        raise InputError("no sentences to score (no outputs)")
    if len(sources) != n or len(source_styles) != n:
        raise InputError(f"{len(sources)} sources, {n} outputs, {len(source_styles)} styles: must be equal")
    for what, given in (("references", references), ("lists", lists)):
        if given is not None and len(given) != n:
            raise InputError(f"{len(given)} {what} for {n} outputs")
    if only is not None:
        only = set(check_keys(only))
    ev = evaluators if isinstance(evaluators, Evaluators) else Evaluators(evaluators)
    scores = Scores()
    scores.n_empty = sum(1 for o in outputs if not (o.split() if isinstance(o, str) else list(o)))

    def load(name: str):
        obj = ev.load(name)
        scores.evaluators[name] = ev.path(name)
        return obj

    for obj in ev.units().values():
        obj.reset_counts()
    ctx = Context(
        list(sources),
        list(outputs),
        list(source_styles),
        load,
        references,
        lists,
        system,
        ScoreOptions.of(options),
        METRICS,
    )
    from tqdm import tqdm

    if only is None:
        keys = scored_keys(ctx.options)
    else:  # asked for by name: also a metric off by default
        keys = [k for k, m in METRICS.items() if not m.derived and k in only]
    bar = tqdm(keys, desc="tst score", unit="metric", file=sys.stderr, disable=not progress, leave=False)
    for key in bar:
        metric = METRICS[key]
        bar.set_postfix_str(key)
        why = _why_not(metric, ctx, ev)
        if why is None:
            try:
                scores[key] = ctx.result(key)
            except Skip as e:
                why = str(e)
            # out of memory: this metric is skipped with the reason, the others go on
            except (MemoryError, RuntimeError) as e:
                if not is_out_of_memory(e):
                    raise
                free_memory()
                why = out_of_memory_reason(e)
        if why is None:
            log.info("%s: %s", key, scores[key].score)
        else:
            scores.skipped[key] = why
            log.warning("skipped %s: %s", key, why)
    for name, obj in ev.units().items():
        if name in scores.evaluators:
            scores.units[name] = obj.counts()
            log.info("%s read %s", name, scores.units[name])
    if any(u["units"] == "bpe" for u in scores.units.values()):
        scores.evaluators[BPE_MODEL] = ev.bpe
    return scores


# What a failed allocation says: torch's CPU allocator raises a plain RuntimeError ("DefaultCPUAllocator:
# can't allocate memory: you tried to allocate N bytes"), CUDA a torch.OutOfMemoryError ("CUDA out of
# memory"), and a C++ kernel whose own allocation fails a RuntimeError "std::bad_alloc" (seen in the GRU under
# an address-space limit). With no memory left even the allocator's message may be cut short: the GRU raised
# RuntimeError("[enforce fail a") under a 2.2 GB limit (an enforce message always closes its "[file:line]").
OOM_MESSAGES = (
    "can't allocate memory",
    "not enough memory",
    "out of memory",
    "std::bad_alloc",
    "alloc_cpu.cpp",
)


def is_out_of_memory(error: BaseException) -> bool:
    """An allocation that failed: MemoryError (Python, numpy), torch.OutOfMemoryError (CUDA), or torch's CPU
    allocator's RuntimeError. (The kernel's OOM killer raises nothing: it kills the process.)"""
    import torch

    if isinstance(error, (MemoryError, torch.OutOfMemoryError)):
        return True
    if not isinstance(error, RuntimeError):
        return False
    message = str(error)
    return any(m in message for m in OOM_MESSAGES) or (
        message.startswith("[enforce fail") and "]" not in message
    )


def free_memory() -> None:
    """Give back what a failed computation left: unreachable tensors, and CUDA's cached blocks."""
    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def out_of_memory_reason(error: BaseException) -> str:
    """The skip reason of a metric that ran out of memory (tst.device.is_out_of_memory)."""
    first = (str(error).strip().splitlines() or [""])[0][:200]
    return (
        f"out of memory ({type(error).__name__}: {first}); the other metrics were scored. Free memory, or "
        f"cut long lines shorter (tst score --max-words, config score.max_words)"
    )
