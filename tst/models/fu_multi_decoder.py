"""Fu et al. (2018) multi-decoder model: a GRU encoder gives the content c; an adversarial MLP classifier
tries to read the style from c (eq. 8) while the encoder maximizes the classifier's entropy (eq. 9);
one GRU decoder per style regenerates the sentence from c (eq. 10). Total loss: eq. 11. The losses of
eqs. 8-9 are tst.models.losses.classifier_loss / negative_entropy."""

from __future__ import annotations

import torch
from torch import nn

from tst.models.cross_aligned import GRUDecoding
from tst.vocab import Vocab


class ContentEncoder(nn.Module):
    """Encoder(x; Theta_e) -> c (last GRU state) and the style classifier MLP(c; Theta_c)."""

    def __init__(self, embed: nn.Embedding, content_dim: int, cls_hidden: int):
        super().__init__()
        self.gru = nn.GRU(embed.embedding_dim, content_dim, batch_first=True)
        self.classifier = nn.Sequential(
            nn.Linear(content_dim, cls_hidden), nn.ReLU(), nn.Linear(cls_hidden, 2)
        )

    def forward(self, emb: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        packed = nn.utils.rnn.pack_padded_sequence(
            emb, lengths.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False
        )
        _, h = self.gru(packed)
        return h[0]


class MultiDecoder(GRUDecoding):
    def __init__(
        self,
        vocab_size: int,
        emb_dim: int = 64,
        content_dim: int = 64,
        dropout: float = 0.5,
        cls_hidden: int = 64,
    ):
        super().__init__()
        self.content_dim = content_dim
        self.embed = nn.Embedding(vocab_size, emb_dim, padding_idx=Vocab.pad_id)
        self.drop = nn.Dropout(dropout)
        self.content = ContentEncoder(self.embed, content_dim, cls_hidden)
        self.decoders = nn.ModuleList(nn.GRU(emb_dim, content_dim, batch_first=True) for _ in range(2))
        self.projs = nn.ModuleList(nn.Linear(content_dim, vocab_size) for _ in range(2))

    def discriminator_parameters(self):
        return list(self.content.classifier.parameters())

    def generator_parameters(self):
        d = {id(p) for p in self.discriminator_parameters()}
        return [p for p in self.parameters() if id(p) not in d]

    def encode(self, tokens: torch.Tensor, lengths: torch.Tensor, style=None) -> torch.Tensor:
        """c = Encoder(x); the style is not an input of Fu et al.'s encoder."""
        return self.content(self.drop(self.embed(tokens)), lengths)

    def classify(self, c: torch.Tensor) -> torch.Tensor:
        return self.content.classifier(c)

    def init_state(self, z: torch.Tensor, style) -> torch.Tensor:
        return z

    def decoder(self, style):
        if not isinstance(style, int):
            raise TypeError("the multi-decoder model decodes one style per call")
        return self.decoders[style], self.projs[style]
