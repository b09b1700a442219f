"""Kim (2014) CNN sentence classifier; also the discriminator over hidden-state sequences.

Embed -> parallel 1-d convolutions (widths 3,4,5 x 128 maps) -> ReLU -> max-over-time pooling
-> dropout 0.5 -> linear. Pang & Gimpel (2019, Sec. 5) use it for Acc and for D_t. negative_slope > 0: leaky ReLU
max(a x, x) instead, as Shen et al.'s discriminators (code/nn.py: cnn, leaky_relu with a = 0.01).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class TextCNN(nn.Module):
    def __init__(
        self,
        vocab_size: int | None,
        emb_dim: int = 128,
        widths=(3, 4, 5),
        n_filters: int = 128,
        n_out: int = 2,
        dropout: float = 0.5,
        pad_id: int = 0,
        negative_slope: float = 0.0,
    ):
        super().__init__()
        self.pad_id = pad_id
        self.negative_slope = float(negative_slope)
        self.widths = tuple(int(w) for w in widths)
        # vocab_size=None: a discriminator that only ever sees already-embedded [B, T, D] input
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_id) if vocab_size else None
        self.convs = nn.ModuleList(nn.Conv1d(emb_dim, n_filters, w) for w in self.widths)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(n_filters * len(self.widths), n_out)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """x: token ids [B, T] (long) or embedded input [B, T, D] (float); mask [B, T] bool (True = real
        position; from the ids when omitted). Returns logits [B, n_out]."""
        if x.dtype in (torch.long, torch.int, torch.int32):
            if mask is None:
                mask = x != self.pad_id
            x = self.embedding(x)
        if mask is None:
            mask = torch.ones(x.shape[:2], dtype=torch.bool, device=x.device)
        x = x * mask.unsqueeze(-1).to(x.dtype)  # padded positions contribute zeros
        lengths = mask.sum(1)
        pad = max(self.widths) - x.size(1)
        if pad > 0:  # sentences shorter than the widest filter: pad with zeros (as Kim 2014)
            x = F.pad(x, (0, 0, 0, pad))
        x = x.transpose(1, 2)  # [B, D, T]
        pooled = []
        for w, conv in zip(self.widths, self.convs):
            h = conv(x)  # [B, F, T - w + 1]
            h = F.leaky_relu(h, self.negative_slope) if self.negative_slope else F.relu(h)
            # a window is real if it starts inside the sentence and ends by its last token; a sentence
            # shorter than w keeps its first window, so results do not depend on the batch's padding
            start = torch.arange(h.size(2), device=h.device)
            valid = start.unsqueeze(0) < (lengths - w + 1).clamp(min=1).unsqueeze(1)
            h = h.masked_fill(~valid.unsqueeze(1), float("-inf"))
            pooled.append(h.max(dim=2).values)  # max-over-time pooling
        return self.out(self.dropout(torch.cat(pooled, dim=1)))
