"""The parts of a sentence the style factor reads one by one (docs/style_and_gm.md: the rule, declared before it
was measured).

A person reads "the food was cold , but overall it was great !" as a complaint followed by a verdict: a part of it
is still in the source style. The style factor (tst.metrics.style) therefore scores each part and keeps the least
on-style one. The rule, on the tokenized, lowercased words the classifiers read:

- a part ends after a sentence mark (. ! ? ;) that more words follow, and before a discourse word that turns or
  sums up (DISCOURSE: but, although, though, however, yet, overall, except, whereas, nevertheless, nonetheless)
  unless the part so far holds no other word ("but overall" opens one part);
- a part of fewer than MIN_WORDS words (tokens with a letter or digit) joins the part before it (the first part:
  the one after it), so "not yet" or a lone "overall" do not stand on their own;
- an output that contains its source's words (the source without its final punctuation, at least MIN_WORDS words)
  as a run of tokens, and adds more, also has that run and the source's own parts as parts: a source joined to
  anything reads at most as on-style as the source itself, wherever the join falls.

The source is read by the same rule, with itself as its source (its own parts), so a copy has exactly the parts
of its source, and an output that contains its source has them all: its style gain over the source is 0.
"""

from __future__ import annotations

SENTENCE_MARKS = frozenset({".", "!", "?", ";"})
DISCOURSE = frozenset(
    {
        "but",
        "although",
        "though",
        "however",
        "yet",
        "overall",
        "except",
        "whereas",
        "nevertheless",
        "nonetheless",
    }
)
MIN_WORDS = 2
FINAL_PUNCTUATION = frozenset({".", "!", "?", ";", ",", "..."})


def _is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def _n_words(tokens: list[str]) -> int:
    return sum(_is_word(t) for t in tokens)


def split_parts(tokens: list[str]) -> list[list[str]]:
    """The parts of one tokenized sentence by the rule above (a sentence with one part: [tokens])."""
    raw, cur = [], []
    for i, t in enumerate(tokens):
        if t in DISCOURSE and any(_is_word(u) and u not in DISCOURSE for u in cur):
            raw.append(cur)
            cur = []
        cur.append(t)
        if t in SENTENCE_MARKS and any(_is_word(u) for u in tokens[i + 1 :]):
            raw.append(cur)
            cur = []
    if cur:
        raw.append(cur)
    parts: list[list[str]] = []
    for p in raw:
        if parts and (_n_words(p) < MIN_WORDS or _n_words(parts[-1]) < MIN_WORDS):
            parts[-1] = parts[-1] + p
        else:
            parts.append(p)
    return parts or [list(tokens)]


def source_span(tokens: list[str], source: list[str]) -> list[str] | None:
    """The source's words (without its final punctuation) where `tokens` holds them as a run and has more words
    besides; else None."""
    core = list(source)
    while core and core[-1] in FINAL_PUNCTUATION:
        core.pop()
    if _n_words(core) < MIN_WORDS or _n_words(tokens) <= _n_words(core):
        return None
    n = len(core)
    for i in range(len(tokens) - n + 1):
        if tokens[i : i + n] == core:
            return core
    return None


def parts_of(tokens: list[str], source: list[str] | None = None) -> list[list[str]]:
    """The parts the style factor reads for an output `tokens` of `source`: split_parts, and, when the output
    contains the source (source_span), that run and the source's own parts. Distinct parts, in order."""
    parts = split_parts(tokens)
    span = source_span(tokens, source) if source is not None else None
    if span is not None:
        parts += [span, *split_parts(source)]
    seen, out = set(), []
    for p in parts:
        if tuple(p) not in seen:
            seen.add(tuple(p))
            out.append(p)
    return out
