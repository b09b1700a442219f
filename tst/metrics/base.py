"""The value every metric function returns."""

from __future__ import annotations

from dataclasses import dataclass, field

# Cosine metrics (Sim, CP): an empty output's value and the rule as the variant labels state it (ours).
EMPTY_OUTPUT_COS = -1.0
EMPTY_COS_RULE = (
    "an empty output (no token) counts as cos -1, the worst value, so emitting empty lines cannot "
    "raise the mean (ours); other pairs with no embedded token left on a side are undefined and "
    "left out"
)


@dataclass
class MetricResult:
    name: str  # short key used in score files and tables, e.g. "acc", "bleu_ref_corpus"
    variant: str  # exact definition, e.g. "corpus BLEU, multi-bleu.perl-compatible, tokenized"
    score: float | None  # corpus-level value (None when undefined, e.g. no sentence had a list)
    per_sentence: list = field(default_factory=list)  # float or None per input sentence
    higher_is_better: bool = True
    details: dict = field(default_factory=dict)  # counts, sub-scores (e.g. n_skipped)

    def to_json(self) -> dict:
        return {
            "score": self.score,
            "variant": self.variant,
            "higher_is_better": self.higher_is_better,
            **({"details": self.details} if self.details else {}),
        }
