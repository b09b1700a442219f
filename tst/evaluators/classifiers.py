"""Style classifiers: Kim CNN (Acc, Pang & Gimpel 2019) and LSTM-sigmoid (transfer strength, Fu et al. 2018);
and all-MiniLM-L6-v2 fine-tuned (tst.models.minilm_classifier; ours, for acceptability).

Checkpoint (torch.load(..., weights_only=True)): {"kind": "text_cnn" | "lstm_classifier" | "minilm", "config":
{"model": ctor kwargs, "train": training settings}, "vocab": itos, "state_dict", "metrics": {"dev_accuracy"}};
a minilm checkpoint has no vocab but "bert_config", "tokenizer" (tokenizer.json text) and "base" (the package
and the sha256 of the weights it was fine-tuned from).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from tst.device import pick_device
from tst.evaluators.content_mask import mask_content_words
from tst.evaluators.training import capped_batches, cpu_state_dict, fit, resolved, set_seed
from tst.models.lstm_classifier import LSTMClassifier
from tst.models.text_cnn import TextCNN
from tst.nlp.negation import with_counterfactuals
from tst.tensors import pad_ids
from tst.vocab import Vocab

MODEL_KEYS = {
    "text_cnn": ("emb_dim", "widths", "n_filters", "dropout"),
    "lstm_classifier": ("emb_dim", "hidden_dim", "dropout"),
    "minilm": ("max_wordpieces", "dropout", "frozen_layers"),
}
KIND_ALIASES = {"cnn": "text_cnn", "lstm": "lstm_classifier", "minilm": "minilm"}
SECTIONS = {kind: section for section, kind in KIND_ALIASES.items()}  # a kind's own evaluators.<section>
PRETRAINED = {"minilm"}  # kinds that read text with their own tokenizer (no vocabulary, no <bos>/<eos>)


def build_model(kind: str, vocab_size: int, model_cfg: dict) -> torch.nn.Module:
    if kind == "text_cnn":
        return TextCNN(vocab_size, n_out=2, **model_cfg)
    if kind == "lstm_classifier":
        return LSTMClassifier(vocab_size, **model_cfg)
    raise ValueError(f"unknown classifier kind {kind!r}")


def _logits_to_proba(kind: str, out: torch.Tensor) -> torch.Tensor:
    if kind == "text_cnn":
        return F.softmax(out, dim=-1)
    p1 = torch.sigmoid(out)
    return torch.stack([1 - p1, p1], dim=-1)


def _loss(kind: str, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if kind == "text_cnn":
        return F.cross_entropy(out, y)
    return F.binary_cross_entropy_with_logits(out, y.float())


class Classifier:
    """A fitted classifier: predict_proba(sentences) -> [n, 2] (P(style 0), P(style 1))."""

    def __init__(
        self,
        kind: str,
        model: torch.nn.Module,
        vocab: Vocab,
        batch_size: int = 256,
        device: torch.device | None = None,
        content_words=(),
    ):
        self.kind, self.vocab, self.batch_size = kind, vocab, batch_size
        self.content_words = set(content_words)  # masked in training (Pang 2019), so masked here too
        self.device = device or pick_device()
        self.model = model.to(self.device).eval()

    @torch.no_grad()
    def predict_proba(self, sentences: list[list[str]]) -> np.ndarray:
        self.model.eval()
        if self.content_words:
            sentences = mask_content_words(sentences, self.content_words)
        ids = [self.vocab.encode(s) for s in sentences]
        out = np.zeros((len(ids), 2), dtype=np.float64)
        for idx in capped_batches([max(len(s), 1) for s in ids], self.batch_size):  # as pad_ids pads
            x = pad_ids([ids[i] for i in idx], self.vocab.pad_id).to(self.device)
            out[idx] = _logits_to_proba(self.kind, self.model(x)).double().cpu().numpy()
        return out

    def predict(self, sentences: list[list[str]]) -> np.ndarray:
        return self.predict_proba(sentences).argmax(1)


def fit_metrics(history: dict, model: torch.nn.Module, n_train: int, n_dev: int) -> dict:
    """A classifier checkpoint's "metrics": tst.evaluators.training.fit's history, the data and model sizes."""
    return {
        "dev_accuracy": history["best_dev"],
        "n_train": n_train,
        "n_dev": n_dev,
        "n_params": sum(p.numel() for p in model.parameters()),
        "epochs": history["epochs"],
        "precision": history["precision"],
    }


def train_classifier(
    train: list[list[str]],
    train_labels,
    dev: list[list[str]],
    dev_labels,
    vocab: Vocab,
    kind: str = "text_cnn",
    model_cfg: dict | None = None,
    train_cfg: dict | None = None,
    log=print,
    first=None,
    section: str | None = None,
) -> dict:
    """Fit on (train, labels), early-stop on dev accuracy; return the checkpoint dict. first: minilm only
    (train_minilm). section: the evaluators.<section> of config.yaml whose resolved settings fill what
    model_cfg and train_cfg leave out (tst.evaluators.training.resolved): by default the kind's own (cnn, lstm,
    minilm); the acceptability and naturalness classifiers name theirs."""
    kind = KIND_ALIASES.get(kind, kind)
    section = section or SECTIONS[kind]
    if kind == "minilm":
        return train_minilm(train, train_labels, dev, dev_labels, model_cfg, train_cfg, log, first, section)
    if first is not None:
        raise ValueError(f"sentence-level labels first are for the minilm classifier, not {kind}")
    model_cfg = {k: v for k, v in (model_cfg or {}).items() if k in MODEL_KEYS[kind]}
    model_cfg, train_cfg = resolved(section, model_cfg, train_cfg, MODEL_KEYS[kind])
    if "widths" in model_cfg:
        model_cfg["widths"] = [int(w) for w in model_cfg["widths"]]
    set_seed(train_cfg["seed"])
    device = pick_device(train_cfg.get("device"))
    model = build_model(kind, len(vocab), model_cfg).to(device)
    ids = [vocab.encode(s) for s in train]
    y = torch.tensor(np.asarray(train_labels), dtype=torch.long)
    min_len = max(model.widths) if kind == "text_cnn" else 1

    def batch_loss(m, idx, dev_):
        x = pad_ids([ids[i] for i in idx], vocab.pad_id, min_len).to(dev_)
        return _loss(kind, m(x), y[idx].to(dev_))

    clf = Classifier(kind, model, vocab, device=device)
    dev_y = np.asarray(dev_labels)

    def evaluate(m):
        return float((clf.predict(dev) == dev_y).mean())

    history = fit(
        model, [len(s) for s in ids], batch_loss, evaluate, train_cfg, True, log, what=f"{section} ({kind})"
    )
    return {
        "kind": kind,
        "config": {"model": model_cfg, "train": train_cfg},
        "vocab": [str(t) for t in vocab.itos],
        "state_dict": cpu_state_dict(model),
        "metrics": fit_metrics(history, model, len(ids), len(dev)),
    }


class MiniLMTextClassifier:
    """A fitted minilm classifier: predict_proba(token lists) -> [n, 2]; it reads the words joined by spaces
    through its own WordPiece tokenizer (tst.models.minilm_classifier)."""

    kind, vocab = "minilm", None
    # trained with tst.nlp.negation's counterfactuals, on VADER's sentence-level labels (both named in the style
    # score's variant)
    counterfactuals = False
    labels = "corpus"
    sentence_labels = None  # SST-2's sentence-level labels beside the dataset's: mixed | first
    CACHE_MAX = 200_000  # sentences remembered (then forgotten at once), as tst.metrics.sbert's embeddings

    def __init__(self, model, tokenizer, batch_size: int = 128, device: torch.device | None = None):
        self.tokenizer, self.batch_size = tokenizer, batch_size
        self.device = device or pick_device()
        self.model = model.to(self.device).eval()
        # text -> probabilities, for the life of the object, one dict per precision (bf16 or not)
        self.seen: dict[bool, dict[str, np.ndarray]] = {False: {}, True: {}}

    @torch.no_grad()
    def predict_proba(self, sentences: list[list[str]], bf16: bool = False) -> np.ndarray:
        """Each distinct text is encoded once per object and precision: a score job reads every checkpoint's
        outputs of a model, which repeat (19,200 demo outputs of M0, 6,563 distinct). Training builds a new
        object per evaluation, so its dev accuracy never reads a stale value. bf16: the BERT in bf16 autocast
        (scoring under evaluators.precision, tst.models.bert.inference_bf16); the dev accuracy is fp32."""
        from tst.models.minilm_classifier import encode

        self.model.eval()
        texts = [" ".join(s) for s in sentences]
        seen = self.seen[bool(bf16)]
        if len(seen) > self.CACHE_MAX:
            seen.clear()
        new = [t for t in dict.fromkeys(texts) if t not in seen]
        ids = encode(self.tokenizer, new)
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=bool(bf16)):
            for idx in capped_batches([len(s) for s in ids], self.batch_size):
                x = pad_ids([ids[i] for i in idx], self.model.pad_id).to(self.device)
                p = F.softmax(self.model(x).float(), -1).double().cpu().numpy()
                seen.update(zip((new[i] for i in idx), p))
        return np.array([seen[t] for t in texts], dtype=np.float64).reshape(len(texts), 2)

    def predict(self, sentences: list[list[str]]) -> np.ndarray:
        return self.predict_proba(sentences).argmax(1)

    def start_run(self) -> None:
        """Forget the probabilities computed in bf16 autocast, at the start of each score run
        (tst.scoring.evaluator_files.Evaluators.start_run): in bf16 a probability moves with the batch it was
        computed in (~1e-4), so a text a score job met in an earlier run (another checkpoint, the dev split)
        would keep that run's value, and the run's score would depend on the runs before it and differ from
        `tst score`'s. The fp32 ones (moving ~1e-7 with their batch) are kept for the life of the object."""
        self.seen[True].clear()


def train_minilm(
    train,
    train_labels,
    dev,
    dev_labels,
    model_cfg=None,
    train_cfg=None,
    log=print,
    first=None,
    section="minilm",
) -> dict:
    """all-MiniLM-L6-v2 (the packaged base weights) with a 2-class head, every weight fine-tuned on (train,
    labels) by tst.evaluators.training.fit (Adam, bucketed batches, bf16 autocast per precision), early-stopped
    on dev accuracy; model_cfg["frozen_layers"] k > 0 keeps the embeddings and the lowest k layers fixed.
    train_cfg["counterfactuals"]: each training sentence also appears with its polarity flipped by rule and the
    other label (tst.nlp.negation; for a negative / positive sentiment pair); the dev sentences stay as they are.
    train_cfg["labels"] ("corpus" | "vader", recorded): which sentences the caller drew the training sample from
    (scripts/train_classifier.py: vader = those tst.nlp.vader.agreeing keeps). first: (sentences, labels) with
    sentence-level labels (tst.data.sentence_labels) trained on for one epoch before (train, labels), the dev
    accuracy after it the one to beat; counterfactuals, when on, are added to both."""
    from tst.models.minilm_classifier import (
        MiniLMClassifier,
        base_files,
        encode,
        load_base_weights,
        tokenizer_from,
    )

    model_cfg = {k: v for k, v in (model_cfg or {}).items() if k in MODEL_KEYS["minilm"]}
    model_cfg, train_cfg = resolved(section, model_cfg, train_cfg, MODEL_KEYS["minilm"])
    set_seed(train_cfg["seed"])
    device = pick_device(train_cfg.get("device"))
    base = base_files()
    model = MiniLMClassifier(base["config"], 2, float(model_cfg["dropout"]))
    load_base_weights(model, base["weights"])
    model.freeze(int(model_cfg["frozen_layers"]))
    model.to(device)
    tok = tokenizer_from(base["tokenizer"], model_cfg["max_wordpieces"])
    if train_cfg.get("counterfactuals"):
        n = len(train)
        train, train_labels = with_counterfactuals(train, train_labels)
        log(f"counterfactual negations: {len(train) - n} added to {n} training sentences")
    dev_y = np.asarray(dev_labels)

    def evaluate(m):  # a new classifier each time: the weights changed since the last evaluation
        return float((MiniLMTextClassifier(m, tok, device=device).predict(dev) == dev_y).mean())

    def train_on(sentences, labels, cfg, start=None):
        ids = encode(tok, [" ".join(s) for s in sentences])
        y = torch.tensor(np.asarray(labels), dtype=torch.long)

        def batch_loss(m, idx, dev_):
            return F.cross_entropy(m(pad_ids([ids[i] for i in idx], m.pad_id).to(dev_)), y[idx].to(dev_))

        run = fit(
            model, [len(s) for s in ids], batch_loss, evaluate, cfg, True, log, start, f"{section} (minilm)"
        )
        return run, len(ids)

    start, n_first = None, 0
    if first is not None:
        first_s, first_y = first
        if train_cfg.get("counterfactuals"):
            first_s, first_y = with_counterfactuals(first_s, first_y)
        pre, n_first = train_on(first_s, first_y, {**train_cfg, "max_epochs": 1, "evals_per_epoch": 1})
        start = pre["best_dev"]
        log(f"sentence-level labels first: {n_first} sentences, dev accuracy {start:.4f}")
    history, n_train = train_on(train, train_labels, train_cfg, start)
    return {
        "kind": "minilm",
        "config": {"model": model_cfg, "train": train_cfg},
        "bert_config": base["config"],
        "tokenizer": base["tokenizer"],
        "base": {"package": base["package"], "sha256": base["sha256"]},
        "state_dict": cpu_state_dict(model),
        "metrics": {
            **fit_metrics(history, model, n_train, len(dev)),
            **({"n_first": n_first} if first else {}),
        },
    }


def classifier_from_checkpoint(ckpt: dict, device: torch.device | None = None):
    if ckpt["kind"] == "minilm":
        from tst.models.minilm_classifier import MiniLMClassifier, tokenizer_from

        cfg = ckpt["config"]["model"]
        model = MiniLMClassifier(ckpt["bert_config"], 2, float(cfg["dropout"]))
        model.load_state_dict(ckpt["state_dict"])
        clf = MiniLMTextClassifier(
            model, tokenizer_from(ckpt["tokenizer"], cfg["max_wordpieces"]), device=device
        )
        clf.counterfactuals = bool(ckpt["config"]["train"].get("counterfactuals", False))
        clf.labels = ckpt["config"]["train"].get("labels", "corpus")
        clf.sentence_labels = ckpt["config"]["train"].get("sentence_labels")
        return clf
    vocab = Vocab(ckpt["vocab"])
    model = build_model(ckpt["kind"], len(vocab), ckpt["config"]["model"])
    model.load_state_dict(ckpt["state_dict"])
    return Classifier(ckpt["kind"], model, vocab, device=device, content_words=ckpt.get("content_words", ()))


def load_classifier(path: str | Path, device: torch.device | None = None) -> Classifier:
    return classifier_from_checkpoint(torch.load(path, map_location="cpu", weights_only=True), device)
