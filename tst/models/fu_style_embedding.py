"""Fu et al. (2018) style-embedding model: the encoder and adversarial classifier of tst/models/fu.py
(eqs. 8-9); a single GRU decoder starts from [c, e_style], style embeddings E in R^{N x d_s} trained jointly
(eq. 12)."""

from __future__ import annotations

import torch
from torch import nn

from tst.models.fu import FuModel


class StyleEmbedding(FuModel):
    def __init__(
        self,
        vocab_size: int,
        emb_dim: int = 64,
        content_dim: int = 64,
        style_dim: int = 64,
        dropout: float = 0.5,
        cls_hidden: int = 64,
    ):
        super().__init__(vocab_size, emb_dim, content_dim, dropout, cls_hidden)
        self.style_dim = style_dim
        self.style_emb = nn.Embedding(2, style_dim)  # E
        self.gru = nn.GRU(emb_dim, content_dim + style_dim, batch_first=True)
        self.proj = nn.Linear(content_dim + style_dim, vocab_size)

    @classmethod
    def from_settings(cls, s: dict, vocab_size: int, variant) -> StyleEmbedding:
        return cls(vocab_size, s["emb_dim"], s["content_dim"], s["style_dim"], s["dropout"], s["cls_hidden"])

    def init_state(self, z: torch.Tensor, style) -> torch.Tensor:
        if isinstance(style, int):
            style = torch.full((z.size(0),), style, dtype=torch.long, device=z.device)
        return torch.cat([z, self.style_emb(style).to(z.dtype)], dim=1)  # [c, e]

    def decoder(self, style):
        return self.gru, self.proj
