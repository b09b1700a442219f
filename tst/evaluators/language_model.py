"""GRU language models for PP (Pang & Gimpel 2019): one joint (X0 u X1) and one per style.

Checkpoint: {"kind": "gru_lm", "config": {"model": ctor kwargs, "train": ...}, "vocab": itos,
"state_dict", "metrics": {"dev_perplexity"}}. PP = exp(sum of token NLL / number of tokens incl. <eos>).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from tst.device import pick_device
from tst.evaluators.content_mask import mask_content_words
from tst.evaluators.training import capped_batches, cpu_state_dict, fit, pad_ids, set_seed
from tst.models.gru_lm import GRULanguageModel
from tst.vocab import Vocab

MODEL_KEYS = ("emb_dim", "hidden_dim", "n_layers", "dropout")


def lm_batch(ids: list[list[int]], vocab: Vocab) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs <bos> x_1..x_n and targets x_1..x_n <eos>, right-padded (targets padded with <pad>)."""
    inp = pad_ids([[vocab.bos_id] + s for s in ids], vocab.pad_id)
    tgt = pad_ids([s + [vocab.eos_id] for s in ids], vocab.pad_id)
    return inp, tgt


class LanguageModel:
    """A fitted LM: token_nll(sentences) -> per-sentence arrays of natural-log NLL (tokens + <eos>)."""

    def __init__(
        self,
        model: GRULanguageModel,
        vocab: Vocab,
        batch_size: int = 256,
        device: torch.device | None = None,
        content_words=(),
    ):
        self.vocab, self.batch_size = vocab, batch_size
        self.content_words = set(content_words)  # masked in training (Pang 2019), so masked here too
        self.device = device or pick_device()
        self.model = model.to(self.device).eval()

    @torch.no_grad()
    def token_nll(self, sentences: list[list[str]]) -> list[np.ndarray]:
        self.model.eval()
        if self.content_words:
            sentences = mask_content_words(sentences, self.content_words)
        ids = [self.vocab.encode(s) for s in sentences]
        out: list[np.ndarray] = [np.zeros(0)] * len(ids)
        for idx in capped_batches([len(s) + 1 for s in ids], self.batch_size):  # <bos> x / x <eos>
            inp, tgt = lm_batch([ids[i] for i in idx], self.vocab)
            logits = self.model(inp.to(self.device))
            nll = F.cross_entropy(logits.transpose(1, 2), tgt.to(self.device), reduction="none")
            nll = nll.double().cpu().numpy()
            for row, i in enumerate(idx):
                out[i] = nll[row, : len(ids[i]) + 1]
        return out

    def perplexity(self, sentences: list[list[str]]) -> float:
        """Corpus perplexity exp(total NLL / total tokens), <eos> counted as a token."""
        nll = self.token_nll(sentences)
        return math.exp(sum(float(a.sum()) for a in nll) / sum(len(a) for a in nll))


def train_lm(
    train: list[list[str]],
    dev: list[list[str]],
    vocab: Vocab,
    model_cfg: dict | None = None,
    train_cfg: dict | None = None,
    log=print,
) -> dict:
    """Fit with teacher forcing, early-stop on dev perplexity; return the checkpoint dict."""
    model_cfg = {k: v for k, v in (model_cfg or {}).items() if k in MODEL_KEYS}
    model_cfg = {"emb_dim": 128, "hidden_dim": 256, **model_cfg}
    train_cfg = dict(train_cfg or {})
    set_seed(train_cfg.get("seed", 1))
    device = pick_device(train_cfg.get("device"))
    model = GRULanguageModel(len(vocab), **model_cfg).to(device)
    ids = [vocab.encode(s) for s in train]

    def batch_loss(m, idx, dev_):
        inp, tgt = lm_batch([ids[i] for i in idx], vocab)
        logits = m(inp.to(dev_))
        return F.cross_entropy(logits.transpose(1, 2), tgt.to(dev_), ignore_index=vocab.pad_id)

    lm = LanguageModel(model, vocab, device=device)
    history = fit(
        model,
        [len(s) for s in ids],
        batch_loss,
        lambda m: lm.perplexity(dev),
        {"clip": 5.0, **train_cfg},
        False,
        log,
    )
    return {
        "kind": "gru_lm",
        "config": {"model": model_cfg, "train": train_cfg},
        "vocab": [str(t) for t in vocab.itos],
        "state_dict": cpu_state_dict(model),
        "metrics": {
            "dev_perplexity": history["best_dev"],
            "n_train": len(ids),
            "n_dev": len(dev),
            "n_params": sum(p.numel() for p in model.parameters()),
            "epochs": history["epochs"],
            "precision": history["precision"],
        },
    }


def lm_from_checkpoint(ckpt: dict, device: torch.device | None = None) -> LanguageModel:
    vocab = Vocab(ckpt["vocab"])
    model = GRULanguageModel(len(vocab), **ckpt["config"]["model"])
    model.load_state_dict(ckpt["state_dict"])
    return LanguageModel(model, vocab, device=device, content_words=ckpt.get("content_words", ()))


def load_lm(path: str | Path, device: torch.device | None = None) -> LanguageModel:
    return lm_from_checkpoint(torch.load(path, map_location="cpu", weights_only=True), device)
