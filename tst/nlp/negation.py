"""Rule-made counterfactual negations (docs/style_and_gm.md), for the style classifier of a sentiment dataset.

In offline Yelp's training split 25.2% of the negative sentences carry a negation and 2.0% of the positive ones,
so a classifier learns "n't" as a mark of the negative style and reads a rewrite that negates a complaint ("It
did n't taste watered down at all .") as the complaint. Training on each sentence's counterfactual, its polarity
flipped by rule and given the other style's label (as Kaushik et al. 2020 do with people's edits), breaks that cue.
The sentences are tokenized and lowercased as the corpus is ("was n't", "ca n't").
"""

from __future__ import annotations

from itertools import pairwise

NEGATIONS = ("n't", "not", "never")
# negated -> affirmative: every negation goes, so a sentence with two negated clauses flips whole
AFFIRMATIVE_AUX = {"ca": "can", "wo": "will", "sha": "shall"}  # "ca n't" -> "can"
AFFIRMATIVE = {"never": "always"}  # the others are dropped
# affirmative -> negated: a negation after every copula and modal; not after have / do, which are main verbs too
NEGATED = {w: [w, "n't"] for w in ("is", "was", "are", "were", "would", "could", "should")}
NEGATED |= {w: [w, "not"] for w in ("am", "'m", "'re")} | {"will": ["wo", "n't"], "can": ["ca", "n't"]}


def counterfactual(tokens: list[str]) -> list[str] | None:
    """The sentence with its polarity flipped by rule, or None where no rule applies. A sentence with a negation
    loses every one ("was n't" -> "was", "ca n't" -> "can", "never" -> "always", "not" dropped); one without
    gets a negation after every copula and modal ("was" -> "was n't", "will" -> "wo n't", "'m" -> "'m not").
    "not only" / "not just" (a contrast, not a negation) leaves the sentence out."""
    if any(t == "not" and nxt in ("only", "just") for t, nxt in pairwise(tokens)):
        return None
    if any(t in NEGATIONS for t in tokens):
        out = []
        for i, t in enumerate(tokens):
            if t in NEGATIONS:
                if t in AFFIRMATIVE:
                    out.append(AFFIRMATIVE[t])
                continue
            if t in AFFIRMATIVE_AUX and i + 1 < len(tokens) and tokens[i + 1] == "n't":
                t = AFFIRMATIVE_AUX[t]
            out.append(t)
        return out or None
    if not any(t in NEGATED for t in tokens):
        return None
    return [w for t in tokens for w in NEGATED.get(t, [t])]


def with_counterfactuals(sentences: list[list[str]], labels) -> tuple[list[list[str]], list[int]]:
    """The sentences and their labels (0 / 1), then each sentence's counterfactual with the other label, in the
    sentences' order; sentences no rule applies to add nothing."""
    labels = [int(y) for y in labels]
    if set(labels) - {0, 1}:
        raise ValueError(
            f"counterfactual negations flip two styles, labelled 0 and 1; got {sorted(set(labels))}"
        )
    pairs = [(c, 1 - y) for s, y in zip(sentences, labels) if (c := counterfactual(s)) is not None]
    return list(sentences) + [c for c, _ in pairs], labels + [y for _, y in pairs]
