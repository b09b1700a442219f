"""Reversible named-entity masking (Pang & Gimpel 2019, §3.1).

Every entity of a configured label becomes ONE placeholder token (e.g. "john smith" -> "-PERSON-");
the surfaces are kept in order so `unmask` can put them back into a transferred sentence.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque

from tst.nlp.backend import Doc

DEFAULT_LABELS = {"PERSON": "-PERSON-", "GPE": "-LOCATION-", "LOC": "-LOCATION-", "FAC": "-LOCATION-"}


def mask_one(
    tokens: list[str], doc: Doc, labels: dict[str, str], keep=frozenset()
) -> tuple[list[str], list[list[str]]]:
    """Mask one sentence; returns (masked tokens, [[placeholder, surface], ...] in order of appearance). An
    entity whose surface (its words joined by spaces) is in `keep` stays as its words."""
    if len(doc.tokens) != len(tokens):
        raise ValueError(f"NLP doc has {len(doc.tokens)} tokens, sentence has {len(tokens)}: {tokens}")
    out, entities, i = [], [], 0
    spans = sorted((s, e, lab) for s, e, lab in doc.ents if lab in labels and e > s)
    for start, end, label in spans:
        if start < i:  # overlapping span (not produced by spaCy/Stanza, but be safe)
            continue
        if keep and " ".join(tokens[start:end]) in keep:
            continue
        out.extend(tokens[i:start])
        out.append(labels[label])
        entities.append([labels[label], " ".join(tokens[start:end])])
        i = end
    out.extend(tokens[i:])
    return out, entities


def mask(
    sentences: list[list[str]], docs: list[Doc], labels: dict[str, str] | None = None, keep=frozenset()
) -> tuple[list[list[str]], list[list[list[str]]]]:
    """Mask a batch: (masked token lists, entities per sentence [[placeholder, surface], ...]); surfaces in
    `keep` stay words (common_surfaces)."""
    if len(sentences) != len(docs):
        raise ValueError(f"{len(sentences)} sentences but {len(docs)} docs")
    labels = DEFAULT_LABELS if labels is None else labels
    masked, entities = [], []
    for tokens, doc in zip(sentences, docs):
        m, e = mask_one(list(tokens), doc, labels, keep)
        masked.append(m)
        entities.append(e)
    return masked, entities


def unmask(tokens: list[str], entities: list[list[str]]) -> list[str]:
    """Put the kept surfaces back, the k-th `-X-` of the sentence getting the k-th kept `-X-` surface.

    Placeholders beyond the kept entities stay as they are; kept entities not used are dropped.
    """
    queues: dict[str, deque] = defaultdict(deque)
    for placeholder, surface in entities:
        queues[placeholder].append(surface)
    out = []
    for t in tokens:
        if queues.get(t):
            out.extend(queues[t].popleft().split())
        else:
            out.append(t)
    return out


# What masking leaves as words (ours). A small NER model reading lowercased, archaic or informal text tags common
# words as entities ("thou" as a place, "marry" and "ho" as persons); masked, they would leave the style that
# uses them, and restored after transfer they would come back into the other style's outputs. A surface tagged at
# least MIN_TAGGED times is a common word, not a name, when every word of it is among the FREQUENT_RANK most
# frequent words of one style and the corpus also uses it where the model tags no entity (a name the model
# tags wherever it occurs stays masked, however frequent: the demo corpus's few names are among its most
# frequent words); or, in a corpus that keeps its case, when it is written in lowercase (as the entity, or
# elsewhere in the corpus).
MIN_TAGGED = 3
FREQUENT_RANK = 100


def common_surfaces(
    sentences: list[list[str]],
    entities: list[list[list[str]]],
    cased: bool,
    styles: list[int] | None = None,
    frequent_rank: int = FREQUENT_RANK,
    min_tagged: int = MIN_TAGGED,
) -> dict[str, dict]:
    """The entity surfaces of `entities` (mask's, for `sentences`, whose styles are `styles`) that masking should
    leave as words: surface -> {"placeholders": {placeholder: times tagged}, "tagged": n, "occurrences": times
    the surface's words occur in a row in the corpus, "reasons": [...]}, most tagged first; only surfaces tagged
    at least min_tagged times. Reasons: "frequent" (every word among the frequent_rank most frequent words of
    one style's sentences, as "thou" in archaic text, and the surface occurs more often than it is tagged),
    "lowercase" (cased corpus only: the surface is written in lowercase where it was tagged, or its lowercase
    form occurs in the corpus)."""
    styles = [0] * len(sentences) if styles is None else styles
    by_style: dict[int, Counter] = defaultdict(Counter)
    for s, st in zip(sentences, styles):
        by_style[st].update(s)
    frequent = {w for counts in by_style.values() for w, _ in counts.most_common(frequent_rank)}
    tagged: dict[str, Counter] = defaultdict(Counter)
    for ents in entities:
        for placeholder, surface in ents:
            tagged[surface][placeholder] += 1
    wanted = set(tagged) | ({s.lower() for s in tagged} if cased else set())
    lengths = {len(s.split()) for s in wanted}
    occurrences: Counter = Counter()
    for s in sentences:
        for n in lengths:
            for i in range(len(s) - n + 1):
                gram = " ".join(s[i : i + n])
                if gram in wanted:
                    occurrences[gram] += 1
    out = {}
    for surface, by in tagged.items():
        reasons, n = [], sum(by.values())
        if n < min_tagged:
            continue
        if all(w in frequent for w in surface.split()) and occurrences[surface] > n:
            reasons.append("frequent")
        if cased and (surface == surface.lower() or occurrences[surface.lower()]):
            reasons.append("lowercase")
        if reasons:
            out[surface] = {
                "placeholders": dict(by.most_common()),
                "tagged": n,
                "occurrences": occurrences[surface],
                "reasons": reasons,
            }
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["tagged"], kv[0])))
