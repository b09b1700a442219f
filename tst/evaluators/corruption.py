"""The acceptability classifier's negatives (tst.evaluators.acceptability): corrupted copies of real sentences.

A corruption applies 1..max_ops operations drawn uniformly from `kinds`:

- shuffle: permute a random span of >= 3 words (the whole sentence when shorter);
- drop: delete 1..max(1, n // 4) words (at least one word stays);
- repeat: insert a copy of a random 1- or 2-word span right after it;
- swap: exchange two adjacent, different words;
- replace: put words drawn from the training corpus's unigram distribution in place of 1..max(1, n // 5) words.

Every corruption is a pure function of the sentence and the numpy Generator (seeded once per corpus), and a
corrupted copy always differs from its sentence; a sentence no kind can change (one word, and only
shuffle / swap / drop asked for) is left out of the negatives and counted. A share of the negatives (lm_share)
is instead cut and continued by sampling a GRU language model (lm_continuations).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import torch

from tst.defaults import default

KINDS = ("shuffle", "drop", "repeat", "swap", "replace", "splice")
# evaluators.acceptability's corruptions, max_ops and corruption_seed where a call leaves them out (config.yaml's)
DEFAULT_CORRUPTION = {
    "kinds": list(default("evaluators", "acceptability", "corruptions")),
    "max_ops": default("evaluators", "acceptability", "max_ops"),
    "seed": default("evaluators", "acceptability", "corruption_seed"),
    "lm_share": default("evaluators", "acceptability", "lm_share"),
    "temperature": default("evaluators", "acceptability", "temperature"),
}


def _shuffle(tokens: list, rng: np.random.Generator, pool) -> list | None:
    n = len(tokens)
    if n < 2 or len(set(tokens)) < 2:
        return None
    span = n if n <= 3 else int(rng.integers(3, n + 1))
    start = int(rng.integers(0, n - span + 1))
    part = tokens[start : start + span]
    if len(set(part)) < 2:
        return None
    for _ in range(20):
        perm = [part[i] for i in rng.permutation(span)]
        if perm != part:
            return tokens[:start] + perm + tokens[start + span :]
    return None


def _drop(tokens: list, rng: np.random.Generator, pool) -> list | None:
    n = len(tokens)
    if n < 2:
        return None
    k = int(rng.integers(1, max(1, n // 4) + 1))
    gone = set(rng.choice(n, size=k, replace=False).tolist())
    return [t for i, t in enumerate(tokens) if i not in gone]


def _repeat(tokens: list, rng: np.random.Generator, pool) -> list | None:
    n = len(tokens)
    if n < 1:
        return None
    span = min(n, int(rng.integers(1, 3)))
    start = int(rng.integers(0, n - span + 1))
    end = start + span
    return tokens[:end] + tokens[start:end] + tokens[end:]


def _swap(tokens: list, rng: np.random.Generator, pool) -> list | None:
    pairs = [i for i in range(len(tokens) - 1) if tokens[i] != tokens[i + 1]]
    if not pairs:
        return None
    i = pairs[int(rng.integers(0, len(pairs)))]
    return tokens[:i] + [tokens[i + 1], tokens[i]] + tokens[i + 2 :]


def _replace(tokens: list, rng: np.random.Generator, pool) -> list | None:
    n = len(tokens)
    if n < 1 or pool is None:
        return None
    words, probs = pool.words, pool.probs
    k = int(rng.integers(1, max(1, n // 5) + 1))
    where = rng.choice(n, size=k, replace=False)
    out = list(tokens)
    for i, w in zip(where.tolist(), rng.choice(len(words), size=k, p=probs).tolist()):
        out[i] = words[w]
    return out if out != tokens else None


def _splice(tokens: list, rng: np.random.Generator, pool) -> list | None:
    n = len(tokens)
    if n < 2 or pool is None or not pool.sentences:
        return None
    other = pool.sentences[int(rng.integers(0, len(pool.sentences)))]
    if len(other) < 2:
        return None
    cut, cut_other = int(rng.integers(1, n)), int(rng.integers(1, len(other)))
    return tokens[:cut] + list(other[cut_other:])


OPERATIONS = {
    "shuffle": _shuffle,
    "drop": _drop,
    "repeat": _repeat,
    "swap": _swap,
    "replace": _replace,
    "splice": _splice,
}
NEEDS_POOL = {"replace", "splice"}


@dataclass(frozen=True)
class Pool:
    """What the corpus-based corruptions draw from: its unigram distribution (replace: words sorted, so it is
    deterministic) and its sentences (splice)."""

    words: list
    probs: np.ndarray
    sentences: list


def corpus_pool(sentences) -> Pool:
    counts = Counter(t for s in sentences for t in s)
    words = sorted(counts)
    p = np.array([counts[w] for w in words], dtype=np.float64)
    return Pool(words, p / p.sum(), [list(s) for s in sentences])


def corrupt(
    tokens, rng: np.random.Generator, kinds=KINDS, max_ops: int = 2, pool: Pool | None = None
) -> list | None:
    """A corrupted copy of `tokens`: 1..max_ops operations, each of a kind drawn uniformly from `kinds` (a kind
    that cannot change the current words is replaced by another drawn from the rest); None when no kind can
    change the sentence. The result differs from `tokens`."""
    unknown = set(kinds) - set(OPERATIONS)
    if unknown or not kinds:
        raise ValueError(f"unknown corruption kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
    if NEEDS_POOL & set(kinds) and pool is None:
        raise ValueError(f"corruptions {sorted(NEEDS_POOL & set(kinds))} need the corpus pool (corpus_pool)")
    original = list(tokens)
    out = list(original)
    n_ops = int(rng.integers(1, max_ops + 1))
    for _ in range(n_ops):
        left = list(kinds)
        while left:
            kind = left.pop(int(rng.integers(0, len(left))))
            new = OPERATIONS[kind](out, rng, pool)
            if new is not None and new != out and new != original:  # ops may not undo each other
                out = new
                break
    return out if out != original else None


def corrupt_corpus(sentences, seed: int = 1, kinds=KINDS, max_ops: int = 2, pool: Pool | None = None):
    """(corrupted copies, indices of the sentences they came from): one Generator seeded once, sentences in
    order, so the same corpus and settings give the same copies."""
    rng = np.random.default_rng(seed)
    out, index = [], []
    for i, s in enumerate(sentences):
        c = corrupt(s, rng, kinds, max_ops, pool)
        if c is not None:
            out.append(c)
            index.append(i)
    return out, index


def sample_rows(probs: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """One index per row of probs [B, V], drawn from that row's distribution by inverting its CDF: the first i
    with cdf_i > u * cdf_V, u ~ U[0, 1) from `g` (float64 sums). A zero-probability index is never drawn.
    (torch.multinomial gives the same distribution at ~15x the time on [256, 9,380] rows on a CPU.)"""
    cdf = torch.cumsum(probs.double(), -1)
    u = torch.rand(probs.shape[0], 1, generator=g, dtype=torch.float64, device=probs.device) * cdf[:, -1:]
    return torch.searchsorted(cdf, u, right=True).squeeze(1).clamp_max(probs.shape[1] - 1)


@torch.no_grad()
def lm_continuations(
    lm, prefixes, max_words: int, seed: int, temperature: float = 1.0, batch_size: int = 256
):
    """Each prefix (token list) followed by words sampled from a GRU LM (tst.evaluators.language_model) until it
    samples <eos> or the sentence has max_words words; <pad>, <unk> and <bos> are never sampled, nor <eos> as a
    sentence's first word. One torch Generator seeded with `seed`; prefixes go in order of length (stable)."""
    model, vocab = lm.model, lm.vocab
    model.eval()
    device = next(model.parameters()).device
    g = torch.Generator(device=device).manual_seed(int(seed))
    banned = [vocab.pad_id, vocab.unk_id, vocab.bos_id]
    out: list = [None] * len(prefixes)
    order = sorted(range(len(prefixes)), key=lambda i: len(prefixes[i]))
    groups: dict[int, list[int]] = {}
    for i in order:
        groups.setdefault(len(prefixes[i]), []).append(i)
    for length, members in groups.items():
        for start in range(0, len(members), batch_size):
            idx = members[start : start + batch_size]
            ids = torch.tensor([[vocab.bos_id, *vocab.encode(prefixes[i])] for i in idx], device=device)
            logits, state = model.next_scores(ids)
            words: list[list[str]] = [[] for _ in idx]
            alive = [True] * len(idx)
            for step in range(max(0, max_words - length)):
                logits[:, banned] = float("-inf")
                if length == 0 and step == 0:
                    logits[:, vocab.eos_id] = float("-inf")
                nxt = sample_rows(torch.softmax(logits / temperature, -1), g)
                for j, t in enumerate(nxt.tolist()):
                    if alive[j]:
                        if t == vocab.eos_id:
                            alive[j] = False
                        else:
                            words[j].append(vocab.itos[t])
                if not any(alive):
                    break
                logits, state = model.next_scores(nxt.unsqueeze(1), state)
            for j, i in enumerate(idx):
                out[i] = [*prefixes[i], *words[j]]
    return out


def negatives(sentences, corruption: dict, pool: Pool | None, lm=None) -> tuple[list, dict]:
    """Corrupted copies of `sentences`: a share `lm_share` of them (drawn with the corruption seed) is cut after
    0..n-1 words and continued by the LM (lm_continuations, seed + 1), the others get the edit corruptions
    (corrupt_corpus). A copy equal to its sentence is left out and counted."""
    c = {**DEFAULT_CORRUPTION, **corruption}
    share = float(c["lm_share"])
    if share > 0 and lm is None:
        raise ValueError("lm_share > 0 needs the language model (lm_joint.pt) to continue the sentences")
    rng = np.random.default_rng(c["seed"])
    use_lm = rng.random(len(sentences)) < share
    cuts = [int(rng.integers(0, len(s))) if len(s) else 0 for s in sentences]
    lm_idx = [i for i in range(len(sentences)) if use_lm[i] and sentences[i]]
    on_lm = set(lm_idx)
    edit_idx = [i for i in range(len(sentences)) if i not in on_lm]
    bad, _ = corrupt_corpus([sentences[i] for i in edit_idx], c["seed"], c["kinds"], c["max_ops"], pool)
    n_lm = 0
    if lm_idx:
        max_words = max(len(s) for s in sentences)
        cont = lm_continuations(
            lm,
            [sentences[i][: cuts[i]] for i in lm_idx],
            max_words,
            int(c["seed"]) + 1,
            c["temperature"],
        )
        kept = [x for x, i in zip(cont, lm_idx) if x != list(sentences[i])]
        n_lm = len(kept)
        bad += kept
    counts = {
        "n_real": len(sentences),
        "n_corrupted": len(bad),
        "n_lm_continued": n_lm,
        "n_unchangeable": len(sentences) - len(bad),
    }
    return bad, counts
