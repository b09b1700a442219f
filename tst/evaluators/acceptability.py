"""Acceptability classifier: real corpus sentences vs corrupted copies of them (ours; a fluency evaluator).

Trained on the dataset's own training text: each training sentence is a positive example and one corrupted
copy of it a negative one. A corruption applies 1..max_ops operations drawn uniformly from `kinds`:

- shuffle: permute a random span of >= 3 words (the whole sentence when shorter);
- drop: delete 1..max(1, n // 4) words (at least one word stays);
- repeat: insert a copy of a random 1- or 2-word span right after it;
- swap: exchange two adjacent, different words;
- replace: put words drawn from the training corpus's unigram distribution in place of 1..max(1, n // 5) words.

Every corruption is a pure function of the sentence and the numpy Generator (seeded once per corpus), and a
corrupted copy always differs from its sentence; a sentence no kind can change (one word, and only
shuffle / swap / drop asked for) is left out of the negatives and counted.

The classifier (tst.evaluators.classifiers, same training loop and checkpoint) is all-MiniLM-L6-v2 fine-tuned
(kind minilm, the default: tst.models.minilm_classifier), reading the words with its own tokenizer, or a Kim CNN
or an LSTM trained from scratch, reading <bos> sentence <eos>; either sees where a sentence starts and ends
(dropped final words). Score of a sentence: P(real). Checkpoint: the classifier's dict plus "task": "acceptability" and "acceptability": the corruption
settings, the counts and the dev accuracy on real vs corrupted dev sentences.
"""

from __future__ import annotations

import string
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from tst.data.splits import sample_train
from tst.evaluators.classifiers import (
    KIND_ALIASES,
    MODEL_KEYS,
    PRETRAINED,
    classifier_from_checkpoint,
    train_classifier,
)
from tst.vocab import BOS, EOS

KINDS = ("shuffle", "drop", "repeat", "swap", "replace", "splice")
PUNCTUATION = set(string.punctuation) - {"_"}  # `_num_` (the corpus's number token) is a word
DEFAULT_CORRUPTION = {"kinds": list(KINDS), "max_ops": 2, "seed": 1}
REAL, CORRUPTED = 1, 0  # class indices: predict_proba[:, REAL] = P(real)


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


def strip_final_punctuation(tokens) -> list:
    """The words without the punctuation tokens at their end (`great food !!` -> `great food`)."""
    out = list(tokens)
    while out and all(ch in PUNCTUATION for ch in out[-1]):
        out.pop()
    return out


def classifier_input(sentences, strip_final: bool = True, kind: str = "lstm_classifier") -> list[list[str]]:
    """What the classifier reads: <bos> w_1 .. w_n <eos>, so it sees where a sentence starts and ends, with
    final punctuation stripped first when `strip_final` (people do not mark down a rewrite for a missing final
    full stop: Li et al.'s raters gave the unpunctuated human rewrites 4.6 / 5; a classifier that sees it
    learns that a missing full stop means a dropped word). A pretrained kind (minilm) gets the words alone: its
    tokenizer adds its own [CLS] and [SEP]."""
    words = [strip_final_punctuation(s) if strip_final else list(s) for s in sentences]
    return words if kind in PRETRAINED else [[BOS, *w, EOS] for w in words]


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
            h, state = model.gru(model.embedding(ids))
            logits = model.scores(h[:, -1])
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
                h, state = model.gru(model.embedding(nxt.unsqueeze(1)), state)
                logits = model.scores(h[:, -1])
            for j, i in enumerate(idx):
                out[i] = [*prefixes[i], *words[j]]
    return out


def negatives(sentences, corruption: dict, pool: Pool | None, lm=None) -> tuple[list, dict]:
    """Corrupted copies of `sentences`: a share `lm_share` of them (drawn with the corruption seed) is cut after
    0..n-1 words and continued by the LM (lm_continuations, seed + 1), the others get the edit corruptions
    (corrupt_corpus). A copy equal to its sentence is left out and counted."""
    c = {**DEFAULT_CORRUPTION, **corruption}
    share = float(c.get("lm_share", 0.0))
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
            c.get("temperature", 1.0),
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


def labelled_set(
    sentences, corruption: dict, pool: Pool | None, strip_final: bool = True, lm=None, kind="lstm_classifier"
):
    """(inputs, labels, counts): real sentences (label REAL) then their corrupted copies (CORRUPTED, negatives),
    as a classifier of `kind` reads them (classifier_input)."""
    bad, counts = negatives(sentences, corruption, pool, lm)
    x = classifier_input(list(sentences) + bad, strip_final, kind)
    y = [REAL] * len(sentences) + [CORRUPTED] * len(bad)
    return x, y, counts


def train_acceptability(
    train,
    dev,
    vocab,
    kind: str = "text_cnn",
    model_cfg: dict | None = None,
    train_cfg: dict | None = None,
    corruption: dict | None = None,
    strip_final: bool = True,
    lm=None,
    log=print,
) -> dict:
    """Fit a real-vs-corrupted classifier (tst.evaluators.classifiers.train_classifier) on the training
    sentences and their corrupted copies; early stopping on the same task over dev (corruption seed + 1).
    The corpus pool (replace, splice) is the training text's, for dev too; `lm` continues a share of them."""
    c = {**DEFAULT_CORRUPTION, **(corruption or {})}
    c["kinds"] = list(c["kinds"])
    pool = corpus_pool(train) if NEEDS_POOL & set(c["kinds"]) else None
    kind = KIND_ALIASES.get(kind, kind)
    x, y, counts = labelled_set(train, c, pool, strip_final, lm, kind)
    dx, dy, dev_counts = labelled_set(dev, {**c, "seed": int(c["seed"]) + 1}, pool, strip_final, lm, kind)
    ckpt = train_classifier(x, y, dx, dy, vocab, kind, model_cfg, train_cfg, log=log)
    ckpt["task"] = "acceptability"
    ckpt["acceptability"] = {
        "corruption": c,
        "strip_final_punctuation": bool(strip_final),
        "train": counts,
        "dev": dev_counts,
    }
    return ckpt


class Acceptability:
    """A fitted acceptability classifier: p_real(sentences) -> P(real) per sentence (token lists or strings)."""

    def __init__(self, classifier, corruption: dict | None = None, strip_final: bool = True):
        self.classifier, self.corruption, self.strip_final = classifier, corruption or {}, strip_final
        # what it reads (tst.data.bpe.ModelUnits feeds BPE pieces when so trained); None: its own tokenizer
        self.vocab = classifier.vocab
        kinds = ", ".join(self.corruption.get("kinds", ()))
        share = float(self.corruption.get("lm_share", 0.0))
        lm = (
            f"{share:.0%} of negatives cut after 0..n-1 words and continued by sampling the joint LM "
            f"(temperature {self.corruption.get('temperature', 1.0)}), the others "
            if share
            else "negatives: "
        )
        reads = (
            "all-MiniLM-L6-v2 fine-tuned, on the words"
            if self.pretrained
            else f"{classifier.kind} on <bos> words <eos>"
        )
        self.description = (
            f"{reads}"
            f"{', final punctuation stripped' if strip_final else ''}; {lm}"
            f"1-{self.corruption.get('max_ops')} edits of {kinds}"
        )

    @property
    def pretrained(self) -> bool:
        """It reads the words through a pretrained encoder (minilm), which p_real can run in bf16."""
        return self.classifier.kind in PRETRAINED

    def p_real(self, sentences, bf16: bool = False) -> np.ndarray:
        """P(real) per sentence; bf16: a pretrained encoder runs in bf16 autocast (the corpus-trained LSTM and
        CNN always compute in fp32)."""
        tokens = [s.split() if isinstance(s, str) else list(s) for s in sentences]
        if not tokens:
            return np.zeros(0)
        x = classifier_input(tokens, self.strip_final, self.classifier.kind)
        if bf16 and self.pretrained:
            return self.classifier.predict_proba(x, bf16=True)[:, REAL]
        return self.classifier.predict_proba(x)[:, REAL]


def acceptability_from_checkpoint(ckpt: dict, device: torch.device | None = None) -> Acceptability:
    if ckpt.get("task") != "acceptability":
        raise ValueError(
            "not an acceptability checkpoint (no task: acceptability); rule train_acceptability makes one"
        )
    a = ckpt["acceptability"]
    return Acceptability(
        classifier_from_checkpoint(ckpt, device), a["corruption"], a["strip_final_punctuation"]
    )


SETTING_KEYS = {
    "model",
    "max_train",
    "corruptions",
    "max_ops",
    "corruption_seed",
    "lm_share",
    "temperature",
    "strip_final_punctuation",
    "min_count",
    "max_vocab",
}


def acceptability_settings(cfg: dict) -> dict:
    """The config block evaluators.acceptability (with tst.config.evaluator_settings' min_count, precision and
    device) split into what train_acceptability takes: kind, model, train, corruption, strip_final, plus the
    vocabulary's min_count and max_vocab."""
    cfg = dict(cfg)
    kind = KIND_ALIASES.get(cfg.get("model", "cnn"), cfg.get("model", "cnn"))
    if kind not in MODEL_KEYS:
        raise ValueError(
            f"evaluators.acceptability.model: {cfg.get('model')!r} is not one of cnn, lstm, minilm"
        )
    return {
        "kind": kind,
        "model": {k: v for k, v in cfg.items() if k in MODEL_KEYS[kind]},
        "train": {
            k: v
            for k, v in cfg.items()
            if k not in SETTING_KEYS and not any(k in m for m in MODEL_KEYS.values())
        },
        "corruption": {
            "kinds": list(cfg.get("corruptions", DEFAULT_CORRUPTION["kinds"])),
            "max_ops": int(cfg.get("max_ops", DEFAULT_CORRUPTION["max_ops"])),
            "seed": int(cfg.get("corruption_seed", DEFAULT_CORRUPTION["seed"])),
            "lm_share": float(cfg.get("lm_share", 0.0)),
            "temperature": float(cfg.get("temperature", 1.0)),
        },
        "strip_final": bool(cfg.get("strip_final_punctuation", True)),
        "min_count": cfg["min_count"],  # tst.config.evaluator_settings sets it
        "max_vocab": cfg.get("max_vocab"),
        "max_train": cfg.get("max_train"),
    }


def training_sentences(per_style: list[list], max_train: int | None, seed: int) -> list:
    """The real sentences the classifier learns from: at most max_train of each style's training sentences
    (tst.data.splits.sample_train with seed + style, as datasets' max_train draws them), styles in order."""
    return [s for style, sents in enumerate(per_style) for s in sample_train(sents, max_train, seed + style)]


def load_acceptability(path: str | Path, device: torch.device | None = None) -> Acceptability:
    return acceptability_from_checkpoint(torch.load(path, map_location="cpu", weights_only=True), device)
