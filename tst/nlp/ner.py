"""Reversible named-entity masking (Pang & Gimpel 2019, §3.1).

Every entity of a configured label becomes ONE placeholder token (e.g. "john smith" -> "-PERSON-");
the surfaces are kept in order so `unmask` can put them back into a transferred sentence.
"""

from __future__ import annotations

from collections import defaultdict, deque

from tst.nlp.backend import Doc

DEFAULT_LABELS = {"PERSON": "-PERSON-", "GPE": "-LOCATION-", "LOC": "-LOCATION-", "FAC": "-LOCATION-"}


def mask_one(tokens: list[str], doc: Doc, labels: dict[str, str]) -> tuple[list[str], list[list[str]]]:
    """Mask one sentence; returns (masked tokens, [[placeholder, surface], ...] in order of appearance)."""
    if len(doc.tokens) != len(tokens):
        raise ValueError(f"NLP doc has {len(doc.tokens)} tokens, sentence has {len(tokens)}: {tokens}")
    out, entities, i = [], [], 0
    spans = sorted((s, e, lab) for s, e, lab in doc.ents if lab in labels and e > s)
    for start, end, label in spans:
        if start < i:  # overlapping span (not produced by spaCy/Stanza, but be safe)
            continue
        out.extend(tokens[i:start])
        out.append(labels[label])
        entities.append([labels[label], " ".join(tokens[start:end])])
        i = end
    out.extend(tokens[i:])
    return out, entities


def mask(
    sentences: list[list[str]], docs: list[Doc], labels: dict[str, str] | None = None
) -> tuple[list[list[str]], list[list[list[str]]]]:
    """Mask a batch: (masked token lists, entities per sentence [[placeholder, surface], ...])."""
    if len(sentences) != len(docs):
        raise ValueError(f"{len(sentences)} sentences but {len(docs)} docs")
    labels = DEFAULT_LABELS if labels is None else labels
    masked, entities = [], []
    for tokens, doc in zip(sentences, docs):
        m, e = mask_one(list(tokens), doc, labels)
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
