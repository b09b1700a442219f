"""Fu et al. (2018) transfer-strength classifier: LSTM-sigmoid (Keras imdb_lstm example).

Embedding 128 -> LSTM 128 -> last hidden state -> linear -> sigmoid = P(style 1).
"""

from __future__ import annotations

import torch
from torch import nn


class LSTMClassifier(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        emb_dim: int = 128,
        hidden_dim: int = 128,
        dropout: float = 0.2,
        pad_id: int = 0,
    ):
        super().__init__()
        self.pad_id = pad_id
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_id)
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(emb_dim, hidden_dim, batch_first=True)
        self.out = nn.Linear(hidden_dim, 1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids [B, T] right-padded -> logit of P(style 1) [B] (apply sigmoid for the probability)."""
        lengths = (ids != self.pad_id).sum(1).clamp(min=1).cpu()
        x = self.dropout(self.embedding(ids))
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)  # h [1, B, H]: state after each sentence's last real token
        return self.out(self.dropout(h[-1])).squeeze(-1)
