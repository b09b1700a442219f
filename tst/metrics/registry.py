"""The metric registry: every metric the scorer computes, the report prints and the human study correlates,
defined once (key, label, unit, decimals, aspect, direction, evaluator files, how it is computed).

A new metric = its module in tst/metrics/ + one entry in METRICS + its test. The scorer (tst.score) loops
over METRICS; the report takes labels, units, decimals and the column order from it; the workflow's score
rule declares its inputs with evaluator_files(); tst.human.correlation takes the metric -> human-aspect
mapping from it.

Cheap to import: no torch, gensim, ot, nltk, sacrebleu or pandas here; each compute function imports its
metric module when it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tst.defaults import default
from tst.names import (
    ACCEPTABILITY,
    CLASSIFIERS,
    EMBEDDINGS,
    EVALUATOR_FILES,
    LANGUAGE_MODELS,
    NATURALNESS_KINDS,
    naturalness_file,
)

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
# the config's score options; their defaults are config.yaml's score block (tst.defaults)
SCORE_OPTIONS = ("cp_lexicon", "cp_seed", "sbert", "pp_count_eos")
DEFAULT_OPTIONS = {**{k: default("score", k) for k in SCORE_OPTIONS}, "references_release": None}
CP_LEXICONS = ("vader", "style_lexicon", "none")  # words removed before CP: VADER, style_lexicon.json, none
# tst score cuts a line to its word limit (tst.config.score_max_words) and to SCORE_CHARS_PER_WORD x that many
# characters (tst.score.cut_words): a 1 MB token without a space is one word but 1,000,000 BPE pieces
# (sentencepiece falls back to characters) for the classifiers and LMs of a BPE dataset. A normal line never
# comes near (Yelp's 15 words: ~80 characters; the limit there: 1,200).
SCORE_CHARS_PER_WORD = 20
# Inputs other than the evaluators a metric may need, and the skip reason when they are absent.
INPUTS = {
    "references": "no human references given",
    "lists": "no attribute lists given",
    "system": "no system name given",
}


class Skip(Exception):
    """Raised by a compute function when its metric cannot be computed on this input; the message is the
    reason recorded under `skipped` in the score file."""


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
    options: dict = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    targets: list = field(init=False)

    _classifiers: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        self.targets = [1 - int(s) for s in self.source_styles]

    def classifier(self, name: str) -> OncePerInput:
        """The loaded style classifier `name`, whose predict_proba on the same sentences runs once per
        context (Acc, Acc-P and STI all read the CNN's probabilities of the outputs)."""
        if name not in self._classifiers:
            self._classifiers[name] = OncePerInput(self.load(name))
        return self._classifiers[name]


class OncePerInput:
    """A classifier's predict_proba remembered per input (token lists), for the life of one Context."""

    def __init__(self, classifier):
        self.classifier, self._seen = classifier, {}

    def predict_proba(self, sentences):
        key = tuple(tuple(s) for s in sentences)
        if key not in self._seen:
            self._seen[key] = self.classifier.predict_proba(sentences)
        return self._seen[key]


@dataclass(frozen=True)
class Metric:
    key: str  # key in score files and TSVs
    label: str  # short name as the papers print it
    unit: str  # for plot axes
    aspect: str  # "style" | "content" | "fluency" | "overall"
    higher_is_better: bool
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

    @property
    def derived(self) -> bool:
        return bool(self.derived_from)

    @property
    def human_aspect(self) -> str | None:
        """The human rating this metric is compared with, or None."""
        return HUMAN_ASPECT.get(self.aspect) if self.vs_human else None

    def files(self, system: str | None = None, options: dict | None = None) -> tuple[str, ...]:
        """Evaluator files needed with this system name and these options (derived: of their factors)."""
        if self.derived:
            return tuple(
                dict.fromkeys(f for k in self.derived_from for f in METRICS[k].files(system, options))
            )
        more = self.more_evaluators(system, resolve_options(options)) if self.more_evaluators else ()
        return tuple(dict.fromkeys([*self.evaluators, *more]))


def resolve_options(options: dict | None) -> dict:
    """DEFAULT_OPTIONS updated with `options`; unknown keys and values are errors."""
    unknown = set(options or {}) - set(DEFAULT_OPTIONS)
    if unknown:
        raise ValueError(f"unknown scoring options {sorted(unknown)}; known: {sorted(DEFAULT_OPTIONS)}")
    out = {**DEFAULT_OPTIONS, **(options or {})}
    if out["cp_lexicon"] not in CP_LEXICONS:
        raise ValueError(f"cp_lexicon must be one of {sorted(CP_LEXICONS)}, not {out['cp_lexicon']!r}")
    out["cp_seed"] = int(out["cp_seed"])
    out["sbert"] = bool(out["sbert"])
    out["pp_count_eos"] = bool(out["pp_count_eos"])
    if out["references_release"] is not None and not isinstance(out["references_release"], str):
        raise ValueError(f"references_release must be a string or None, not {out['references_release']!r}")
    return out


# ---- compute functions: each imports its metric module when it runs ----

CNN, LSTM = CLASSIFIERS["cnn"], CLASSIFIERS["lstm"]
GLOVE = EMBEDDINGS["glove"]


def _acc(ctx: Context):
    from tst.metrics.acc import accuracy

    return accuracy(ctx.outputs, ctx.targets, ctx.classifier(CNN))


def _acc_prob(ctx: Context):
    from tst.metrics.acc import target_probability

    return target_probability(ctx.outputs, ctx.targets, ctx.classifier(CNN))


def _transfer_strength(ctx: Context):
    from tst.metrics.acc import accuracy

    return accuracy(
        ctx.outputs,
        ctx.targets,
        ctx.load(LSTM),
        name="transfer_strength",
        variant="Fu et al. 2018 transfer strength: share of outputs the LSTM-sigmoid puts in the "
        "target style",
    )


def _sti(ctx: Context):
    from tst.metrics.sti import sti

    return sti(ctx.sources, ctx.outputs, ctx.targets, ctx.classifier(CNN))


def _sim(ctx: Context):
    from tst.metrics.sim import sim

    return sim(ctx.sources, ctx.outputs, ctx.load(GLOVE), ctx.load(IDF))


def _style_words(ctx: Context):
    from tst.evaluators.style_lexicon import style_words

    return style_words(ctx.load(STYLE_LEXICON))


def _cp_words(ctx: Context):
    lexicon = ctx.options["cp_lexicon"]
    if lexicon == "vader":
        from tst.nlp.vader import vader_words

        return vader_words()
    return _style_words(ctx) if lexicon == "style_lexicon" else frozenset()


def _cp_lexicon_file(system, options) -> tuple[str, ...]:
    return (STYLE_LEXICON,) if options["cp_lexicon"] == "style_lexicon" else ()


def _cp(ctx: Context):
    from tst.metrics.content_preservation import content_preservation

    return content_preservation(
        ctx.sources, ctx.outputs, ctx.load(GLOVE), _cp_words(ctx), lexicon_name=ctx.options["cp_lexicon"]
    )


def _cp_random(ctx: Context):
    from tst.metrics.content_preservation import random_pair_content_preservation

    return random_pair_content_preservation(
        ctx.sources,
        ctx.outputs,
        ctx.load(GLOVE),
        _cp_words(ctx),
        seed=ctx.options["cp_seed"],
        lexicon_name=ctx.options["cp_lexicon"],
    )


def _cp_lower_bound(ctx: Context):
    from tst.metrics.content_preservation import content_preservation_lower_bound

    return content_preservation_lower_bound(
        ctx.sources,
        ctx.load(GLOVE),
        _cp_words(ctx),
        seed=ctx.options["cp_seed"],
        lexicon_name=ctx.options["cp_lexicon"],
    )


def _distinct(ctx: Context):
    from tst.metrics.distinct import distinct

    return distinct(ctx.outputs)


def _pp_joint(ctx: Context):
    from tst.metrics.perplexity import perplexity

    return perplexity(ctx.outputs, ctx.load(LANGUAGE_MODELS["joint"]), count_eos=ctx.options["pp_count_eos"])


def _pp_target(ctx: Context):
    from tst.metrics.perplexity import perplexity_by_style

    return perplexity_by_style(
        ctx.outputs,
        ctx.targets,
        {s: ctx.load(LANGUAGE_MODELS[f"style{s}"]) for s in (0, 1)},
        count_eos=ctx.options["pp_count_eos"],
    )


PP_NOTE = "(final <eos> not counted, as Shen et al.'s code; --pp-count-eos counts it)"


def _acceptability(ctx: Context):
    from tst.metrics.acceptability import acceptability

    return acceptability(ctx.outputs, ctx.load(ACCEPTABILITY))


def _wmd(mode: str, kv: str):
    def compute(ctx: Context):
        from tst.metrics.wmd import wmd

        words = _style_words(ctx) if mode != "unmasked" else frozenset()
        return wmd(ctx.sources, ctx.outputs, ctx.load(kv), words, mode)

    return compute


def _naturalness_file(kind: str):
    def files(system, options) -> tuple[str, ...]:
        return (naturalness_file(system, kind),) if system else ()

    return files


def _naturalness(kind: str):
    def compute(ctx: Context):
        from tst.metrics.naturalness import naturalness

        return naturalness(
            ctx.outputs,
            ctx.load(naturalness_file(ctx.system, kind)),
            name=f"naturalness_{kind}",
            sources=ctx.sources,
        )

    return compute


def _naturalness_inputs(kind: str):
    def compute(ctx: Context):
        from tst.metrics.naturalness import naturalness_inputs

        return naturalness_inputs(
            ctx.sources, ctx.load(naturalness_file(ctx.system, kind)), name=f"naturalness_{kind}_inputs"
        )

    return compute


def _self_bleu(kind: str):
    def compute(ctx: Context):
        from tst.metrics.bleu import self_bleu

        return self_bleu(ctx.sources, ctx.outputs, kind)

    return compute


def _ref_bleu(kind: str):
    def compute(ctx: Context):
        from tst.metrics.bleu import ref_bleu_where_given

        r = ref_bleu_where_given(ctx.outputs, ctx.references, kind, ctx.options["references_release"])
        if r is None:
            raise Skip(INPUTS["references"])
        return r

    return compute


def _attribute_hit(ctx: Context):
    from tst.metrics.attribute_hit import attribute_hit

    return attribute_hit(ctx.lists, [o.split() if isinstance(o, str) else list(o) for o in ctx.outputs])


def _sbert(ctx: Context):
    from tst.metrics.sbert import missing, sbert_similarity

    why = (
        missing()
        if ctx.options["sbert"]
        else "off: turn it on with the scoring option sbert (score.sbert: true)"
    )
    if why:
        raise Skip(why)
    return sbert_similarity(ctx.sources, ctx.outputs)


# The content score of the default (calibrated) GM: decided on content separation (tst.validity; docs).
GM_CONTENT = "sbert_all_minilm_l6_v2"


def _gm_pg(values: dict, gm_t, calibration):
    from tst.metrics.gm import gm_result

    return gm_result(values["acc"], values["sim"], values["pp_joint"], gm_t)


def _gm(values: dict, gm_t, calibration):
    from tst.metrics.gm import gm_calibrated_result

    if not calibration:
        raise Skip(
            "no calibrated GM thresholds: the workflow writes results/<dataset>/validity/gm_thresholds.json "
            "(rule gm_calibration); tst score reads it from the dataset folder or --gm-calibration"
        )
    if list(calibration["keys"]) != ["acc", GM_CONTENT, "pp_joint"]:
        raise Skip(
            f"GM thresholds were calibrated for {calibration['keys']}, not acc, {GM_CONTENT}, pp_joint"
        )
    return gm_calibrated_result(values["acc"], values[GM_CONTENT], values["pp_joint"], calibration)


_BLEU = "BLEU, 0-100"
_NAT = "P(human)"

METRICS: dict[str, Metric] = {
    m.key: m
    for m in [
        Metric("acc", "Acc", "share of outputs", "style", True, (CNN,), _acc),
        Metric("acc_prob", "Acc-P", "P(target style)", "style", True, (CNN,), _acc_prob),
        Metric("transfer_strength", "TS", "share of outputs", "style", True, (LSTM,), _transfer_strength),
        Metric("sim", "Sim", "cosine", "content", True, (GLOVE, IDF), _sim),
        Metric(
            "cp",
            "CP",
            "cosine",
            "content",
            True,
            (GLOVE,),
            _cp,
            more_evaluators=_cp_lexicon_file,
            note="(words of --cp-lexicon removed; + style_lexicon.json with --cp-lexicon style_lexicon)",
        ),
        Metric(
            "cp_random",
            "CP-random",
            "cosine",
            "content",
            True,
            (GLOVE,),
            _cp_random,
            more_evaluators=_cp_lexicon_file,
            note="(as cp, each source with a random other output, --cp-seed)",
            vs_human=False,
        ),
        Metric(
            "cp_lower_bound",
            "CP-lower",
            "cosine",
            "content",
            True,
            (GLOVE,),
            _cp_lower_bound,
            more_evaluators=_cp_lexicon_file,
            vs_human=False,
            note="(Fu's dataset constant: 2,000 random pairs of sources, --cp-seed)",
        ),
        Metric(
            "pp_joint",
            "PP",
            "perplexity",
            "fluency",
            False,
            (LANGUAGE_MODELS["joint"],),
            _pp_joint,
            digits=1,
            note=PP_NOTE,
        ),
        Metric(
            "pp_target",
            "PP-target",
            "perplexity",
            "fluency",
            False,
            (LANGUAGE_MODELS["style0"], LANGUAGE_MODELS["style1"]),
            _pp_target,
            digits=1,
            note=PP_NOTE,
        ),
        Metric("acceptability", "Accept", "P(real)", "fluency", True, (ACCEPTABILITY,), _acceptability),
        Metric(
            "gm",
            "GM",
            "geometric mean",
            "overall",
            True,
            derived_from=("acc", GM_CONTENT, "pp_joint"),
            digits=2,
            derive=_gm,
            note="(ours: thresholds calibrated on the sanity baselines, --gm-calibration)",
            vs_human=False,
        ),
        Metric(
            "gm_pg",
            "GM-P&G",
            "geometric mean",
            "overall",
            True,
            derived_from=("acc", "sim", "pp_joint"),
            digits=2,
            derive=_gm_pg,
            note="(Pang & Gimpel eq. 1, thresholds --gm-t)",
            vs_human=False,
        ),
        Metric("sti", "STI", "EMD", "style", True, (CNN,), _sti),
        Metric(
            "wmd_masked",
            "WMD-masked",
            "WMD",
            "content",
            False,
            (STYLE_LEXICON, EMBEDDINGS["word2vec_masked"]),
            _wmd("masked", EMBEDDINGS["word2vec_masked"]),
        ),
        Metric(
            "wmd_removed",
            "WMD-removed",
            "WMD",
            "content",
            False,
            (STYLE_LEXICON, EMBEDDINGS["word2vec"]),
            _wmd("removed", EMBEDDINGS["word2vec"]),
        ),
        Metric(
            "wmd_unmasked",
            "WMD-unmasked",
            "WMD",
            "content",
            False,
            (EMBEDDINGS["word2vec"],),
            _wmd("unmasked", EMBEDDINGS["word2vec"]),
        ),
        *(
            Metric(
                f"naturalness_{kind}",
                f"Nat-{kind.upper()}",
                _NAT,
                "fluency",
                True,
                (),
                _naturalness(kind),
                inputs=("system",),
                more_evaluators=_naturalness_file(kind),
                note=naturalness_file("{system}", kind),
            )
            for kind in NATURALNESS_KINDS
        ),
        *(
            Metric(
                f"naturalness_{kind}_inputs",
                f"Nat-{kind.upper()}-inputs",
                _NAT,
                "fluency",
                True,
                (),
                _naturalness_inputs(kind),
                inputs=("system",),
                more_evaluators=_naturalness_file(kind),
                note=f"(the system's inputs) {naturalness_file('{system}', kind)}",
                vs_human=False,
            )
            for kind in NATURALNESS_KINDS
        ),
        Metric(
            "bleu_self_corpus",
            "self-BLEU",
            _BLEU,
            "content",
            True,
            (),
            _self_bleu("corpus"),
            digits=1,
            vs_human=False,
        ),
        Metric(
            "distinct",
            "distinct",
            "share of outputs",
            "overall",
            True,
            (),
            _distinct,
            vs_human=False,
        ),
        Metric(
            "bleu_self_sentence",
            "self-BLEU-sent",
            _BLEU,
            "content",
            True,
            (),
            _self_bleu("sentence"),
            digits=1,
        ),
        Metric(
            "bleu_ref_corpus",
            "ref-BLEU",
            _BLEU,
            "content",
            True,
            (),
            _ref_bleu("corpus"),
            digits=1,
            inputs=("references",),
            vs_human=False,
        ),
        Metric(
            "bleu_ref_sentence",
            "ref-BLEU-sent",
            _BLEU,
            "content",
            True,
            (),
            _ref_bleu("sentence"),
            digits=1,
            inputs=("references",),
            vs_human=False,
        ),
        Metric("bleu_self_st", "self-BLEU-ST", _BLEU, "content", True, (), _self_bleu("st"), digits=1),
        Metric(
            "bleu_ref_st",
            "ref-BLEU-ST",
            _BLEU,
            "content",
            True,
            (),
            _ref_bleu("st"),
            digits=1,
            inputs=("references",),
            vs_human=False,
        ),
        Metric(
            "attribute_hit",
            "Hit",
            "share of attribute words",
            "content",
            True,
            (),
            _attribute_hit,
            inputs=("lists",),
        ),
        Metric(
            "sbert_all_minilm_l6_v2",
            "SBERT-all-MiniLM-L6-v2",
            "cosine",
            "content",
            True,
            (),
            _sbert,
            note="(scoring option sbert, on by default; the content score of the default GM)",
        ),
    ]
}
ORDER = list(METRICS)  # canonical column order of the metric tables


def order_key(key: str) -> tuple[int, str]:
    """Sort key: registry order, then unknown keys by name."""
    return (ORDER.index(key) if key in METRICS else len(ORDER), key)


def check_keys(keys) -> list[str]:
    unknown = [k for k in keys if k not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric keys {unknown}; known: {', '.join(METRICS)}")
    return list(keys)


def evaluator_files(keys=None, *, system: str | None = None, options: dict | None = None) -> list[str]:
    """The evaluator files (relative to the evaluators folder) the metrics `keys` (default: all) need, each
    once, in the order of tst.names.EVALUATOR_FILES then any others (naturalness files, only with a
    system name). What the workflow's score rule declares as inputs."""
    keys = check_keys(METRICS if keys is None else keys)
    found = dict.fromkeys(f for k in keys for f in METRICS[k].files(system, options))
    return sorted(
        found, key=lambda f: EVALUATOR_FILES.index(f) if f in EVALUATOR_FILES else len(EVALUATOR_FILES)
    )


class ScoreMetrics(dict):
    """A score file's "metrics" dict (key -> {"score": ..., "variant": ..., ...}) with `.skipped`: the derived
    metrics that could not be computed, key -> reason."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.skipped: dict[str, str] = {}


def add_derived(metrics: dict, gm_t=None, calibration: dict | None = None) -> ScoreMetrics:
    """`metrics` (a score file's "metrics" dict) with every derived metric (re)computed from the stored
    corpus scores of its factors, in registry order; gm_t = Pang & Gimpel's GM thresholds (default theirs,
    for gm_pg); calibration = the dataset's calibrated GM thresholds (tst.metrics.gm.calibrate, for gm). A
    derived metric whose factor or thresholds are missing is left out (a stale value is dropped) and its
    reason goes to `.skipped`."""
    if gm_t is None:
        from tst.metrics.gm import DEFAULT_T

        gm_t = DEFAULT_T
    out = dict(metrics)
    skipped = {}
    for key, m in METRICS.items():
        if not m.derived:
            continue
        need = [k for k in m.derived_from if (metrics.get(k) or {}).get("score") is None]
        if need:
            out.pop(key, None)
            skipped[key] = f"needs {', '.join(need)}"
            continue
        try:
            out[key] = m.derive(
                {k: float(metrics[k]["score"]) for k in m.derived_from}, gm_t, calibration
            ).to_json()
        except Skip as e:
            out.pop(key, None)
            skipped[key] = str(e)
    result = ScoreMetrics({k: out[k] for k in sorted(out, key=order_key)})
    result.skipped = skipped
    return result


def help_lines() -> list[str]:
    """One line per metric for `tst score --help`: key, label, evaluator files / inputs."""
    flags = {"references": "with --references", "lists": "with --lists", "system": "with --system"}
    lines = []
    for key, m in METRICS.items():
        what = (
            ", ".join(m.evaluators)
            if m.evaluators
            else ("from " + ", ".join(m.derived_from) if m.derived else "")
        )
        needs = [flags[i] for i in m.inputs]
        parts = [p for p in (what, m.note, f"({'; '.join(needs)})" if needs else "") if p]
        lines.append(f"  {key:<19} {m.label:<15} {' '.join(parts) or '(always)'}")
    return lines
