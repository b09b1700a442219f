"""What Fu et al.'s (2018) two models share: a GRU encoder gives the content c; an adversarial MLP classifier
tries to read the style from c (eq. 8) while the encoder maximizes the classifier's entropy (eq. 9). The
decoders differ: tst/models/fu_multi_decoder.py (eq. 10-11), tst/models/fu_style_embedding.py (eq. 12)."""

from __future__ import annotations

import torch
from torch import nn

from tst.models import losses as L
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


class FuModel(GRUDecoding):
    """The word embeddings, dropout, encoder and adversarial classifier; a subclass adds its decoder(s) after
    them (init_state, decoder)."""

    adversary_reads_transfer = False  # the classifier reads the content c only

    def __init__(self, vocab_size: int, emb_dim: int, content_dim: int, dropout: float, cls_hidden: int):
        super().__init__()
        self.content_dim = content_dim
        self.embed = nn.Embedding(vocab_size, emb_dim, padding_idx=Vocab.pad_id)
        self.drop = nn.Dropout(dropout)
        self.content = ContentEncoder(self.embed, content_dim, cls_hidden)

    def discriminator_parameters(self):
        return list(self.content.classifier.parameters())

    def encode(self, tokens: torch.Tensor, lengths: torch.Tensor, style=None) -> torch.Tensor:
        """c = Encoder(x); the style is not an input of Fu et al.'s encoder."""
        return self.content(self.drop(self.embed(tokens)), lengths)

    def classify(self, c: torch.Tensor) -> torch.Tensor:
        return self.content.classifier(c)

    def adversary_loss(self, zs, h_real, h_fake) -> dict:
        """Update 1, eq. 8: the classifier learns the style t of c_t (detached)."""
        return {f"d{t}": L.classifier_loss(self.classify(zs[t].detach()), t) for t in (0, 1)}

    def adversarial_loss(self, zs, h_real, h_fake, d_losses, threshold):
        """Update 2, eq. 9: the encoder maximizes the classifier's entropy; always in L_total."""
        return sum(L.negative_entropy(self.classify(zs[t])) for t in (0, 1)), True
