"""What every metric module shares: the value its metric functions return (MetricResult) and the registry
row it declares (Metric, in its module-level ROWS; tst.metrics.registry collects them), with the Context a
row's compute function reads.

Cheap to import (tst.metrics.registry imports every metric module): no torch, gensim, ot, nltk, sacrebleu or
pandas here or at the top of a metric module; a compute function imports what it needs when it runs. Nothing
here imports the registry, so code that imports one metric module runs (and is hashed with, tst.codehash)
that module only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tst.defaults import default
from tst.device import PRECISIONS

# Cosine metrics (Sim, CP): the value of an output with no usable word and the rule as the variant labels
# state it (ours). A score of 0 was proposed; 0 would reward such an output over any pair with a negative cosine, so
# the worst value is the cosine's minimum, -1: replacing any output by an unusable one never raises the mean.
EMPTY_OUTPUT_COS = -1.0
EMPTY_COS_RULE = (
    "an output with no usable word (empty, every word without an embedding, or every word removed as a "
    "style word) counts as cos -1, the lowest cosine, so no output can raise the mean by being unusable "
    "(ours); a pair whose source has no usable word is undefined and left out (the system cannot cause it)"
)


def worst_if_unusable(source_vec, output_vec, cos) -> float | None:
    """The one rule for a cosine content metric's pair: None (left out, counted) when the source side has no
    usable word, EMPTY_OUTPUT_COS when the output side has none (or a zero vector), else cos(source, output)."""
    if source_vec is None:
        return None
    c = None if output_vec is None else cos(source_vec, output_vec)
    return EMPTY_OUTPUT_COS if c is None else c


def output_counts(outputs, output_vecs) -> dict:
    """n_empty (no token at all) and n_no_usable_words (tokens, none usable) of a system's outputs."""
    empty = [not (o.split() if isinstance(o, str) else list(o)) for o in outputs]
    return {
        "n_empty": sum(empty),
        "n_no_usable_words": sum(1 for e, v in zip(empty, output_vecs) if v is None and not e),
    }


@dataclass
class MetricResult:
    name: str  # short key used in score files and tables, e.g. "acc", "bleu_ref_corpus"
    variant: str  # exact definition, e.g. "corpus BLEU, multi-bleu.perl-compatible, tokenized"
    score: float | None  # corpus-level value (None when undefined, e.g. no sentence had a list)
    per_sentence: list = field(default_factory=list)  # float or None per input sentence
    higher_is_better: bool = True
    details: dict = field(default_factory=dict)  # counts, sub-scores (e.g. n_skipped)
    # per-sentence sufficient statistics of a corpus-level metric (PP, corpus BLEU) from which tst.bootstrap
    # recomputes it on a resample of the sentences; not written to the score JSON
    resample: dict = field(default_factory=dict, repr=False)

    def to_json(self) -> dict:
        return {
            "score": self.score,
            "variant": self.variant,
            "higher_is_better": self.higher_is_better,
            **({"details": self.details} if self.details else {}),
        }


def with_references(outputs, references) -> list[int] | None:
    """The indices of the sentences that have references (`references[i]` a list, or None/empty where
    sentence i has none), or None when there are none (no references given, or none for any sentence)."""
    if references is None:
        return None
    if len(references) != len(outputs):
        raise ValueError(f"{len(outputs)} outputs but {len(references)} reference entries")
    return [i for i, r in enumerate(references) if r] or None


# ---- the registry row a metric module declares ----

IDF = "idf.json"
STYLE_LEXICON = "style_lexicon.json"

ASPECTS = ("style", "content", "fluency", "overall")
# The human rating each aspect is compared with (Li et al. 2018's three 1-5 ratings).
HUMAN_ASPECT = {"content": "topic", "style": "sentiment", "fluency": "grammaticality"}

# Scoring options (the config's `score` block without gm_t; `tst score --cp-lexicon/--cp-seed`).
# sbert: compute sbert_all_minilm_l6_v2 (on by default: the content score of the default GM)
# pp_count_eos: PP (pp_joint, pp_target) counts each sentence's final <eos> (a labelled variant); off by default,
# as in Shen et al.'s code (tst.metrics.perplexity.SHEN_EOS)
# references_release: the references' release, named in the ref-BLEU variants (the dataset's
# references.release; `tst score --references-release`); None: not known
# extra_metrics: keys of metrics off by default (a row with default=False) to score too (score.extra_metrics)
# precision: evaluators.precision (auto | bf16 | fp32), the precision of the MiniLM at inference (sbert and the
# minilm acceptability classifier; tst.models.bert.inference_bf16); `tst score --precision`
# The config's score options; their defaults are config.yaml's score block (tst.defaults), extra_metrics excepted
# (config.yaml leaves it commented out: none).
SCORE_OPTIONS = ("cp_lexicon", "cp_seed", "sbert", "pp_count_eos", "extra_metrics")
DEFAULT_OPTIONS = {
    **{k: default("score", k) for k in SCORE_OPTIONS if k != "extra_metrics"},
    "references_release": None,
    "extra_metrics": (),
    "precision": default("evaluators", "precision"),
}
CP_LEXICONS = ("vader", "style_lexicon", "none")  # words removed before CP: VADER, style_lexicon.json, none
# Inputs other than the evaluators a metric may need, and the skip reason when they are absent.
INPUTS = {
    "references": "no human references given",
    "lists": "no attribute lists given",
    "system": "no system name given",
}


class Skip(Exception):
    """Raised by a compute function when its metric cannot be computed on this input; the message is the
    reason recorded under `skipped` in the score file."""


@dataclass(frozen=True, eq=False)
class ScoreOptions(Mapping):
    """The scoring options resolved once (ScoreOptions.of: DEFAULT_OPTIONS updated with the options given, every
    key and value checked) and passed down as they are, as a job resolves its tst.variants.Variant once: the
    scorer, the registry's file lists and the metrics' compute functions read them (options["cp_lexicon"], or
    as attributes). A read-only mapping of DEFAULT_OPTIONS' keys, in that order: equal to the dict of the same
    values."""

    cp_lexicon: str
    cp_seed: int
    sbert: bool
    pp_count_eos: bool
    references_release: str | None
    extra_metrics: tuple[str, ...]
    precision: str

    @classmethod
    def of(cls, options: Mapping | ScoreOptions | None) -> ScoreOptions:
        """`options` resolved (a ScoreOptions is returned as it is); ValueError for an unknown key or a value
        out of its range, TypeError for extra_metrics given as one string. The keys of extra_metrics are the
        registry's to check (tst.metrics.registry.scored_keys)."""
        if isinstance(options, ScoreOptions):
            return options
        unknown = set(options or {}) - set(DEFAULT_OPTIONS)
        if unknown:
            raise ValueError(f"unknown scoring options {sorted(unknown)}; known: {sorted(DEFAULT_OPTIONS)}")
        out = {**DEFAULT_OPTIONS, **(options or {})}
        if out["cp_lexicon"] not in CP_LEXICONS:
            raise ValueError(f"cp_lexicon must be one of {sorted(CP_LEXICONS)}, not {out['cp_lexicon']!r}")
        if out["precision"] not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {out['precision']!r}")
        if out["references_release"] is not None and not isinstance(out["references_release"], str):
            raise ValueError(
                f"references_release must be a string or None, not {out['references_release']!r}"
            )
        if isinstance(out["extra_metrics"], str):
            raise TypeError(f"extra_metrics must be a list of metric keys, not {out['extra_metrics']!r}")
        return cls(
            cp_lexicon=out["cp_lexicon"],
            cp_seed=int(out["cp_seed"]),
            sbert=bool(out["sbert"]),
            pp_count_eos=bool(out["pp_count_eos"]),
            references_release=out["references_release"],
            extra_metrics=tuple(out["extra_metrics"] or ()),
            precision=out["precision"],
        )

    def __getitem__(self, key: str):
        if key not in DEFAULT_OPTIONS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return iter(DEFAULT_OPTIONS)

    def __len__(self) -> int:
        return len(DEFAULT_OPTIONS)

    def __hash__(self) -> int:
        return hash(tuple(self.items()))


@dataclass
class Context:
    """What a compute function sees: the aligned corpus, the inputs, the options and `load(file)`, which
    returns the loaded evaluator file (relative to the evaluators folder; loaded once, recorded as used)."""

    sources: list
    outputs: list
    source_styles: list
    load: Callable[[str], Any]
    references: list | None = None
    lists: list | None = None
    system: str | None = None
    options: ScoreOptions = field(default_factory=lambda: ScoreOptions.of(None))
    targets: list = field(init=False)

    _classifiers: dict = field(default_factory=dict, init=False, repr=False)
    # the metric registry (tst.metrics.registry.METRICS), which the scorer passes: result() computes from it
    registry: dict = field(default_factory=dict, repr=False)
    _results: dict = field(default_factory=dict, init=False, repr=False)
    _shared: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        self.targets = [1 - int(s) for s in self.source_styles]

    def classifier(self, name: str) -> OncePerInput:
        """The loaded style classifier `name`, whose predict_proba on the same sentences runs once per
        context (Acc, Acc-P and STI all read the CNN's probabilities of the outputs)."""
        if name not in self._classifiers:
            self._classifiers[name] = OncePerInput(self.load(name))
        return self._classifiers[name]

    def once(self, key: str, compute: Callable[[], Any]):
        """compute() once per context, remembered under `key`: an intermediate that several metrics read (the
        default GM's style gain and content factor, tst.metrics.joint)."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    def has(self, key: str) -> bool:
        """Whether once() computed `key` already."""
        return key in self._shared

    def result(self, key: str):
        """Metric `key`'s MetricResult on this context, computed once (the scorer's loop and a metric built on
        others, tst.metrics.joint, share it); a Skip is raised again each time it is asked for."""
        if key not in self._results:
            try:
                self._results[key] = self.registry[key].compute(self)
            except Skip as e:
                self._results[key] = e
        if isinstance(self._results[key], Skip):
            raise self._results[key]
        return self._results[key]


class OncePerInput:
    """A classifier's predict_proba remembered per input (token lists), for the life of one Context."""

    def __init__(self, classifier):
        self.classifier, self._seen = classifier, {}

    def predict_proba(self, sentences):
        key = tuple(tuple(s) for s in sentences)
        if key not in self._seen:
            self._seen[key] = self.classifier.predict_proba(sentences)
        return self._seen[key]

    def __getattr__(self, name):  # what the classifier says of itself (kind, counterfactuals) passes through
        if name == "classifier":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.classifier, name)


@dataclass(frozen=True)
class Metric:
    """One registry row, declared in its metric module's ROWS."""

    key: str  # key in score files and TSVs
    label: str  # short name as the papers print it
    unit: str  # for plot axes
    aspect: str  # "style" | "content" | "fluency" | "overall"
    higher_is_better: bool
    order: int  # place in score files, TSVs, tables and `tst score --help`: rows are sorted by it (unique)
    evaluators: tuple[str, ...] = ()  # files relative to the evaluators folder, always needed
    compute: Callable[[Context], Any] | None = None  # Context -> MetricResult; None for derived metrics
    derived_from: tuple[str, ...] = ()  # derived metrics: the corpus scores they are computed from
    digits: int = 3  # decimals in tables
    inputs: tuple[str, ...] = ()  # keys of INPUTS the metric needs besides evaluators
    # files that depend on the system name or the options: (system, options) -> file names
    more_evaluators: Callable[[str | None, dict], tuple[str, ...]] | None = None
    note: str = ""  # what `tst score --help` adds after the files (in terms of its options)
    vs_human: bool = True  # correlated with the human rating of its aspect (tst.human.correlation)
    derive: Callable[..., Any] | None = (
        None  # derived: ({key: corpus score}, gm_t, calibration) -> MetricResult
    )
    # scored unless asked otherwise; False: only when named (scoring option extra_metrics, `tst score --metrics`)
    default: bool = True

    @property
    def derived(self) -> bool:
        return bool(self.derived_from)

    @property
    def human_aspect(self) -> str | None:
        """The human rating this metric is compared with, or None."""
        return HUMAN_ASPECT.get(self.aspect) if self.vs_human else None

    def files(self, system: str | None = None, options: Mapping | None = None) -> tuple[str, ...]:
        """Evaluator files needed with this system name and these options (a derived metric's are those of its
        factors: tst.metrics.registry.files)."""
        more = self.more_evaluators(system, ScoreOptions.of(options)) if self.more_evaluators else ()
        return tuple(dict.fromkeys([*self.evaluators, *more]))
