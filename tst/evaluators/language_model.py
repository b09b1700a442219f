"""GRU language models for PP (Pang & Gimpel 2019): one joint (X0 u X1) and one per style.

Checkpoint: {"kind": "gru_lm", "config": {"model": ctor kwargs, "train": ...}, "vocab": itos,
"state_dict", "metrics": {"dev_perplexity", ...}}. PP = exp(sum of token NLL / number of tokens incl. <eos>).
The model's "softmax" (full | adaptive) and "cutoffs" are the ones it was built with (an adaptive softmax whose
cutoffs all reach past the vocabulary is a full one, and says so); a checkpoint without them is a full softmax.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch

from tst.defaults import default
from tst.device import pick_device
from tst.evaluators.content_mask import mask_content_words
from tst.evaluators.training import capped_batches, cpu_state_dict, fit, resolved, set_seed
from tst.models.gru_lm import GRULanguageModel
from tst.tensors import pad_ids
from tst.vocab import Vocab

MODEL_KEYS = ("emb_dim", "hidden_dim", "n_layers", "dropout", "softmax", "cutoffs", "div_value")
# how a style LM starts (tst.rule_inputs.lm_init) and how long it trains
STYLE_KEYS = ("style_init", "style_epochs")


def lm_settings(settings: dict, warm_start: bool) -> tuple[dict, dict]:
    """evaluators.lm (one dataset's, tst.stages.evaluator_settings) -> (model config, training config) of one LM.
    A warm-started style LM trains style_epochs epochs instead of max_epochs."""
    model = {k: v for k, v in settings.items() if k in MODEL_KEYS}
    train = {k: v for k, v in settings.items() if k not in MODEL_KEYS + STYLE_KEYS}
    if warm_start:
        train["max_epochs"] = settings["style_epochs"]
    return model, train


def output_layer(model_cfg: dict, vocab_size: int) -> dict:
    """The output layer a config asks for, on this vocabulary: an adaptive softmax keeps the cutoffs inside it
    (0 < c < V, tst.models.gru_lm); with none left it is the full softmax, and the returned config says so
    ("softmax": "full", "adaptive_cutoffs_dropped": [...]). A full softmax carries no cutoffs."""
    cfg = {k: v for k, v in model_cfg.items() if k not in ("cutoffs", "div_value")}
    if cfg.get("softmax", default("evaluators", "lm", "softmax")) == "full":
        return {**cfg, "softmax": "full"}
    asked = sorted({int(c) for c in model_cfg.get("cutoffs") or ()})
    kept = [c for c in asked if 0 < c < vocab_size]
    if not kept:
        return {**cfg, "softmax": "full", "adaptive_cutoffs_dropped": asked}
    div = float(model_cfg.get("div_value", default("evaluators", "lm", "div_value")))
    hidden = int(cfg.get("hidden_dim", default("evaluators", "lm", "hidden_dim")))
    if hidden // div ** len(kept) < 1:  # torch's width for cluster i: hidden_dim // div_value^i
        raise ValueError(
            f"evaluators.lm: hidden_dim {hidden} with div_value {div:g} leaves cluster {len(kept)} of cutoffs "
            f"{kept} a projection of width 0; use fewer cutoffs or a smaller div_value"
        )
    return {**cfg, "softmax": "adaptive", "cutoffs": kept, "div_value": div}


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
        training: dict | None = None,
    ):
        self.vocab, self.batch_size = vocab, batch_size
        self.training = training  # how it was trained (training_summary), for the score JSON
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
            nll = self.model.target_nll(inp.to(self.device), tgt.to(self.device), self.vocab.pad_id)
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
    init: dict | None = None,
) -> dict:
    """Fit with teacher forcing, early-stop on dev perplexity; return the checkpoint dict. init: a checkpoint
    (same vocabulary, same model config) whose weights training starts from, e.g. a style LM fine-tuned from the
    joint LM; its dev perplexity on this dev set is the score to beat, and the checkpoint records it."""
    model_cfg = {k: v for k, v in (model_cfg or {}).items() if k in MODEL_KEYS}
    model_cfg, train_cfg = resolved("lm", model_cfg, train_cfg, MODEL_KEYS)
    model_cfg = output_layer(model_cfg, len(vocab))
    set_seed(train_cfg["seed"])
    device = pick_device(train_cfg.get("device"))
    model = GRULanguageModel(len(vocab), **ctor_kwargs(model_cfg)).to(device)
    if init is not None:
        check_init(init, vocab, model_cfg)
        model.load_state_dict(init["state_dict"])
    ids = [vocab.encode(s) for s in train]

    def batch_loss(m, idx, dev_):
        """Mean NLL over the batch's target tokens (<eos> included, padding not)."""
        inp, tgt = lm_batch([ids[i] for i in idx], vocab)
        tgt = tgt.to(dev_)
        return m.target_nll(inp.to(dev_), tgt, vocab.pad_id).sum() / (tgt != vocab.pad_id).sum()

    lm = LanguageModel(model, vocab, device=device)
    init_dev = lm.perplexity(dev) if init is not None else None
    history = fit(
        model,
        [len(s) for s in ids],
        batch_loss,
        lambda m: lm.perplexity(dev),
        train_cfg,
        False,
        log,
        start=init_dev,
        what="language model"
        if init is None
        else f"language model from {init.get('name', 'a given checkpoint')}",
    )
    return {
        "kind": "gru_lm",
        "config": {"model": model_cfg, "train": train_cfg},
        "vocab": [str(t) for t in vocab.itos],
        "state_dict": cpu_state_dict(model),
        "metrics": {
            "dev_perplexity": history["best_dev"],
            "n_train": len(ids),
            "n_train_tokens": sum(len(s) + 1 for s in ids),
            "n_dev": len(dev),
            "n_params": sum(p.numel() for p in model.parameters()),
            "epochs": history["epochs"],
            "stopped": history["stopped"],
            "precision": history["precision"],
            **({"init_dev_perplexity": init_dev} if init is not None else {}),
        },
        **({"init": init.get("name", "given checkpoint")} if init is not None else {}),
    }


def check_init(init: dict, vocab: Vocab, model_cfg: dict) -> None:
    """A warm start needs the same vocabulary and the same network; say which differs."""
    if list(init["vocab"]) != list(vocab.itos):
        raise ValueError("the initial LM's vocabulary differs from this LM's: train both on one vocab.txt")
    if ctor_kwargs(init["config"]["model"]) != ctor_kwargs(model_cfg):
        raise ValueError(
            f"the initial LM's model {ctor_kwargs(init['config']['model'])} differs from this LM's "
            f"{ctor_kwargs(model_cfg)}: evaluators.lm must be the same for both"
        )


def ctor_kwargs(model_cfg: dict) -> dict:
    """The GRULanguageModel arguments of a checkpoint's model config (its notes dropped)."""
    return {k: v for k, v in model_cfg.items() if k in MODEL_KEYS}


def training_summary(ckpt: dict) -> dict:
    """What a PP score JSON records of its LM: the output layer (softmax kind, cutoffs), the epochs trained,
    why training stopped, the precision and the dev perplexity. A checkpoint from before the adaptive softmax
    is a full softmax; what it did not record is left out. A warm-started LM names its initial checkpoint and
    that checkpoint's dev perplexity on this LM's dev set."""
    model, metrics = ckpt["config"]["model"], ckpt.get("metrics", {})
    out = {"softmax": model.get("softmax", "full")}
    for key in ("cutoffs", "div_value", "adaptive_cutoffs_dropped"):
        if key in model:
            out[key] = model[key]
    if metrics.get("epochs"):
        out["epochs"] = metrics["epochs"][-1]["epoch"]
    if "lr_schedule" in ckpt["config"].get("train", {}):
        out["lr_schedule"] = ckpt["config"]["train"]["lr_schedule"]
    for key in ("stopped", "precision", "dev_perplexity", "n_train_tokens", "init_dev_perplexity"):
        if key in metrics:
            out[key] = metrics[key]
    if "init" in ckpt:
        out["init"] = ckpt["init"]  # a style LM fine-tuned from this checkpoint (lm_joint.pt)
    return out


def lm_from_checkpoint(ckpt: dict, device: torch.device | None = None) -> LanguageModel:
    vocab = Vocab(ckpt["vocab"])
    model = GRULanguageModel(len(vocab), **ctor_kwargs(ckpt["config"]["model"]))
    model.load_state_dict(ckpt["state_dict"])
    return LanguageModel(
        model,
        vocab,
        device=device,
        content_words=ckpt.get("content_words", ()),
        training=training_summary(ckpt),
    )


def load_lm(path: str | Path, device: torch.device | None = None) -> LanguageModel:
    return lm_from_checkpoint(torch.load(path, map_location="cpu", weights_only=True), device)
