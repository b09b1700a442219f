"""The value every metric function returns."""

from __future__ import annotations

from dataclasses import dataclass, field

# Cosine metrics (Sim, CP): the value of an output with no usable word and the rule as the variant labels
# state it (ours). The issue asks 0; 0 would reward such an output over any pair with a negative cosine, so
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
