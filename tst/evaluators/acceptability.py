"""Acceptability classifier: real corpus sentences vs corrupted copies of them (ours; a fluency evaluator).

Trained on the dataset's own training text: each training sentence is a positive example and one corrupted
copy of it a negative one (tst.evaluators.corruption: the edit operations, their settings, the LM-continued
share).

The classifier (tst.evaluators.classifiers, same training loop and checkpoint) is all-MiniLM-L6-v2 fine-tuned
(kind minilm, the default: tst.models.minilm_classifier), reading the words with its own tokenizer, or a Kim CNN
or an LSTM trained from scratch, reading <bos> sentence <eos>; either sees where a sentence starts and ends
(dropped final words). Score of a sentence: P(real). Checkpoint: the classifier's dict plus "task": "acceptability" and "acceptability": the corruption
settings, the counts and the dev accuracy on real vs corrupted dev sentences.
"""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np
import torch

from tst.data.splits import sample_train
from tst.defaults import evaluator_defaults
from tst.evaluators.classifiers import (
    KIND_ALIASES,
    MODEL_KEYS,
    PRETRAINED,
    classifier_from_checkpoint,
    train_classifier,
)
from tst.evaluators.corruption import DEFAULT_CORRUPTION, NEEDS_POOL, Pool, corpus_pool, negatives
from tst.vocab import BOS, EOS

PUNCTUATION = set(string.punctuation) - {"_"}  # `_num_` (the corpus's number token) is a word
REAL, CORRUPTED = 1, 0  # class indices: predict_proba[:, REAL] = P(real)


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
    ckpt = train_classifier(x, y, dx, dy, vocab, kind, model_cfg, train_cfg, log=log, section="acceptability")
    ckpt["task"] = "acceptability"
    ckpt["acceptability"] = {
        "corruption": c,
        "strip_final_punctuation": bool(strip_final),
        "train": counts,
        "dev": dev_counts,
    }
    return ckpt


SHUFFLED_QUANTILE = 0.95  # the default GM's fluency factor counts only P(real) above this share of word salad
SHUFFLED_MAX = 2000  # dev sentences shuffled for it (a seeded sample when there are more)


def shuffled_floor(model, word_salad: list[str]) -> dict:
    """The SHUFFLED_QUANTILE quantile of P(real) over `word_salad`: the dev sentences (at most SHUFFLED_MAX, a seeded
    sample) with their words in a random order (tst.baselines.shuffled, seed 0; scripts/train_acceptability.py),
    the fluency that word salad of the corpus's own words reaches. The default GM's fluency factor counts P(real)
    above it (tst.metrics.joint)."""
    p = model.p_real(word_salad) if word_salad else np.zeros(1)
    return {"q": SHUFFLED_QUANTILE, "value": float(np.quantile(p, SHUFFLED_QUANTILE)), "n": len(word_salad)}


class Acceptability:
    """A fitted acceptability classifier: p_real(sentences) -> P(real) per sentence (token lists or strings)."""

    def __init__(
        self, classifier, corruption: dict | None = None, strip_final: bool = True, floor: dict | None = None
    ):
        self.classifier, self.corruption, self.strip_final = classifier, corruption or {}, strip_final
        self.shuffled_floor = floor  # shuffled_floor's dict; None in a checkpoint made before it existed
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
        classifier_from_checkpoint(ckpt, device),
        a["corruption"],
        a["strip_final_punctuation"],
        a.get("shuffled_floor"),
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
    """The config block evaluators.acceptability (with tst.stages.evaluator_settings' min_count, precision and
    device) split into what train_acceptability takes: kind, model, train, corruption, strip_final, plus the
    vocabulary's min_count and max_vocab."""
    cfg = evaluator_defaults("acceptability", cfg)
    kind = KIND_ALIASES.get(cfg["model"], cfg["model"])
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
            "kinds": list(cfg["corruptions"]),
            "max_ops": int(cfg["max_ops"]),
            "seed": int(cfg["corruption_seed"]),
            "lm_share": float(cfg["lm_share"]),
            "temperature": float(cfg["temperature"]),
        },
        "strip_final": bool(cfg["strip_final_punctuation"]),
        "min_count": cfg["min_count"],  # tst.stages.evaluator_settings sets it
        "max_vocab": cfg.get("max_vocab"),
        "max_train": cfg.get("max_train"),
    }


def training_sentences(per_style: list[list], max_train: int | None, seed: int) -> list:
    """The real sentences the classifier learns from: at most max_train of each style's training sentences
    (tst.data.splits.sample_train with seed + style, as datasets' max_train draws them), styles in order."""
    return [s for style, sents in enumerate(per_style) for s in sample_train(sents, max_train, seed + style)]


def load_acceptability(path: str | Path, device: torch.device | None = None) -> Acceptability:
    return acceptability_from_checkpoint(torch.load(path, map_location="cpu", weights_only=True), device)
