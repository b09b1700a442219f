"""Fu et al. (2018) style-embedding model: the encoder and adversarial classifier of the multi-decoder model
(eqs. 8-9); a single GRU decoder starts from [c, e_style], style embeddings E in R^{N x d_s} trained jointly
(eq. 12)."""

from __future__ import annotations

import torch
from torch import nn

from tst.models.cross_aligned import GRUDecoding
from tst.models.fu_multi_decoder import ContentEncoder
from tst.vocab import Vocab


class StyleEmbedding(GRUDecoding):
    def __init__(
        self,
        vocab_size: int,
        emb_dim: int = 64,
        content_dim: int = 64,
        style_dim: int = 64,
        dropout: float = 0.5,
        cls_hidden: int = 64,
    ):
        super().__init__()
        self.content_dim, self.style_dim = content_dim, style_dim
        self.embed = nn.Embedding(vocab_size, emb_dim, padding_idx=Vocab.pad_id)
        self.drop = nn.Dropout(dropout)
        self.content = ContentEncoder(self.embed, content_dim, cls_hidden)
        self.style_emb = nn.Embedding(2, style_dim)  # E
        self.gru = nn.GRU(emb_dim, content_dim + style_dim, batch_first=True)
        self.proj = nn.Linear(content_dim + style_dim, vocab_size)

    def discriminator_parameters(self):
        return list(self.content.classifier.parameters())

    def generator_parameters(self):
        d = {id(p) for p in self.discriminator_parameters()}
        return [p for p in self.parameters() if id(p) not in d]

    def encode(self, tokens: torch.Tensor, lengths: torch.Tensor, style=None) -> torch.Tensor:
        return self.content(self.drop(self.embed(tokens)), lengths)

    def classify(self, c: torch.Tensor) -> torch.Tensor:
        return self.content.classifier(c)

    def init_state(self, z: torch.Tensor, style) -> torch.Tensor:
        if isinstance(style, int):
            style = torch.full((z.size(0),), style, dtype=torch.long, device=z.device)
        return torch.cat([z, self.style_emb(style).to(z.dtype)], dim=1)  # [c, e]

    def decoder(self, style):
        return self.gru, self.proj
