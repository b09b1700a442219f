"""The parts of a sentence the style factor reads one by one (docs/style_and_gm.md: the rule, declared before it
was measured).

A person reads "the food was cold , but overall it was great !" as a complaint followed by a verdict: a part of it
is still in the source style. The style factor (tst.metrics.style) therefore scores each part and keeps the least
on-style one, and reads the output's material that carries its source's content apart. The rule, on the
tokenized, lowercased words the classifiers read:

- a part ends after a sentence mark (. ! ? ;) that more words follow, and before a discourse word that turns or
  sums up (DISCOURSE: but, although, though, however, yet, overall, except, whereas, nevertheless, nonetheless)
  unless the part so far holds no other word ("but overall" opens one part);
- a part of fewer than MIN_WORDS words (tokens with a letter or digit) joins the part before it (the first part:
  the one after it), so "not yet" or a lone "overall" do not stand on their own: these are the output's **own
  parts** (split_parts);
- its **content parts** (content_parts) read its source's content as the output holds it: where the output
  contains its source's words (the source without its final punctuation, at least MIN_WORDS words) as a run of
  tokens, and adds more, that run and the source's own parts, so a source joined to anything keeps the source's
  reading, wherever the join falls; where the output holds material its source does not (tst.nlp.align: the
  output's words aligned to the source's, one to one, by runs, moved words and substitutions), its **kept
  material** — the aligned tokens in the output's order — and that material's own parts, where the kept material
  holds at least KEPT_SHARE of the source's words (the source's content, not a fragment of it) and MIN_WORDS
  words: the source's material, however lightly edited, is read apart from whatever was added to it, in any
  words, at any place; and where the words the output put in place of some of its source's may be added
  material in disguise (a word dropped and a verdict put where it was), the source's own words as kept
  (unchanged_part) are read against the source itself (tst.metrics.style).

The source is read by the same rule, with itself as its source (its own parts, no content parts), so a copy has
exactly the parts of its source, and an output that contains its source reads the source's own parts among its
content parts: its style gain over the source is 0.
"""

from __future__ import annotations

from tst.nlp.align import is_word, kept_material, kept_share

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
KEPT_SHARE = 0.5  # the kept material is read apart where it holds at least this share of the source's words
FINAL_PUNCTUATION = frozenset({".", "!", "?", ";", ",", "..."})


def _n_words(tokens: list[str]) -> int:
    return sum(map(is_word, tokens))


def split_parts(tokens: list[str]) -> list[list[str]]:
    """The parts of one tokenized sentence by the rule above (a sentence with one part: [tokens])."""
    raw, cur = [], []
    for i, t in enumerate(tokens):
        if t in DISCOURSE and any(is_word(u) and u not in DISCOURSE for u in cur):
            raw.append(cur)
            cur = []
        cur.append(t)
        if t in SENTENCE_MARKS and any(is_word(u) for u in tokens[i + 1 :]):
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


def kept_part(tokens: list[str], source: list[str], substitutions: bool = True) -> list[str] | None:
    """The output's kept material (tst.nlp.align.kept_material) where the output also holds words its source does
    not and the kept material has at least MIN_WORDS words and KEPT_SHARE of the source's; else None."""
    kept = kept_material(tokens, source, substitutions)
    adds_words = _n_words(tokens) > _n_words(kept)
    if not adds_words or _n_words(kept) < MIN_WORDS or kept_share(tokens, source, substitutions) < KEPT_SHARE:
        return None
    return kept


def unchanged_part(tokens: list[str], source: list[str]) -> list[str] | None:
    """The source's own words as the output keeps them, without the words it put in place of others
    (kept_part without substitutions), where the output has other words and that material holds KEPT_SHARE of
    the source's words and differs from the kept material; else None. The style factor reads it against the source
    (tst.metrics.style.part_probs): a substitute is an edit only where the words it replaced made the style."""
    kept = kept_part(tokens, source)
    same = kept_part(tokens, source, substitutions=False)
    return same if same is not None and same != kept else None


def content_parts(tokens: list[str], source: list[str]) -> list[list[str]]:
    """The parts that read the source's content as an output `tokens` holds it: when the output contains the
    source (source_span), that run and the source's own parts; when it adds material to its source's (kept_part),
    the kept material and its parts; else none (a copy, an honest rewrite that adds nothing). Distinct parts, in
    order."""
    parts = []
    span = source_span(tokens, source)
    if span is not None:
        parts += [span, *split_parts(source)]
    kept = kept_part(tokens, source)
    if kept is not None:
        parts += [kept, *split_parts(kept)]
    return _distinct(parts)


def parts_of(tokens: list[str], source: list[str] | None = None) -> list[list[str]]:
    """Every part the style factor reads for an output `tokens` of `source`: its own parts (split_parts) and
    those that read its source's content (content_parts). Distinct parts, in order."""
    return _distinct(split_parts(tokens) + (content_parts(tokens, source) if source is not None else []))


def _distinct(parts: list[list[str]]) -> list[list[str]]:
    seen, out = set(), []
    for p in parts:
        if tuple(p) not in seen:
            seen.add(tuple(p))
            out.append(p)
    return out
