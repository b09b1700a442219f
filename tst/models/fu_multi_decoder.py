"""Fu et al. (2018) multi-decoder model: the encoder and adversarial classifier of tst/models/fu.py (eqs. 8-9);
one GRU decoder per style regenerates the sentence from c (eq. 10). Total loss: eq. 11."""

from __future__ import annotations

import torch
from torch import nn

from tst.models.fu import FuModel


class MultiDecoder(FuModel):
    def __init__(
        self,
        vocab_size: int,
        emb_dim: int = 64,
        content_dim: int = 64,
        dropout: float = 0.5,
        cls_hidden: int = 64,
    ):
        super().__init__(vocab_size, emb_dim, content_dim, dropout, cls_hidden)
        self.decoders = nn.ModuleList(nn.GRU(emb_dim, content_dim, batch_first=True) for _ in range(2))
        self.projs = nn.ModuleList(nn.Linear(content_dim, vocab_size) for _ in range(2))

    @classmethod
    def from_settings(cls, s: dict, vocab_size: int, variant) -> MultiDecoder:
        return cls(vocab_size, s["emb_dim"], s["content_dim"], s["dropout"], s["cls_hidden"])

    def init_state(self, z: torch.Tensor, style) -> torch.Tensor:
        return z

    def decoder(self, style):
        if not isinstance(style, int):
            raise TypeError("the multi-decoder model decodes one style per call")
        return self.decoders[style], self.projs[style]
