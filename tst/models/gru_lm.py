"""GRU language model with dropout 0.5 (Pang & Gimpel 2019: PP metric and the frozen LMs of eq. 6).

Input starts with <bos>, targets end with <eos>: p(x) = prod_t p(x_t | <bos>, x_<t).
"""

from __future__ import annotations

import torch
from torch import nn


class GRULanguageModel(nn.Module):
    def __init__(
        self, vocab_size: int, emb_dim: int, hidden_dim: int, n_layers: int = 1, dropout: float = 0.5
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim)
        self.drop = nn.Dropout(dropout)
        self.gru = nn.GRU(
            emb_dim, hidden_dim, n_layers, batch_first=True, dropout=dropout if n_layers > 1 else 0.0
        )
        self.out = nn.Linear(hidden_dim, vocab_size)

    def _decode(self, x: torch.Tensor, h0: torch.Tensor | None) -> torch.Tensor:
        h, _ = self.gru(self.drop(x), h0)
        return self.out(self.drop(h))

    def forward(self, input_ids: torch.Tensor, h0: torch.Tensor | None = None) -> torch.Tensor:
        """input_ids [B, T] -> next-token logits [B, T, V] (causal, so right padding never leaks back)."""
        return self._decode(self.embedding(input_ids), h0)

    def forward_soft(self, probs: torch.Tensor, h0: torch.Tensor | None = None) -> torch.Tensor:
        """probs [B, T, V], distributions over the vocabulary (e.g. decoder softmax outputs, eq. 6),
        embedded as probs @ E -> logits [B, T, V]. Gradients flow into probs."""
        return self._decode(probs @ self.embedding.weight, h0)
