"""What the trainer (tst.train.trainer) and the transfer code (tst.train.transfer) call on a transfer model:
every family of tst.variants.FAMILIES implements it (tests/models/test_protocol.py checks each)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import torch
from torch import nn


@runtime_checkable
class TransferModel(Protocol):
    embed: nn.Embedding  # the word embeddings W (Yu et al.'s attribute term reads E(y) = probs @ W)
    # whether the adversary reads the soft-decoded transfers h~ (Shen et al.'s D, eq. 3) or only the content
    # (Fu et al.'s classifier, eq. 8): the trainer soft-decodes for it only then
    adversary_reads_transfer: bool

    @classmethod
    def from_settings(cls, settings: dict, vocab_size: int, variant) -> TransferModel:
        """A fresh model from the training settings (over tst.train.trainer.DEFAULTS), the vocabulary size and
        the resolved variant (tst.variants.Variant)."""

    # ---- the two parameter groups of the alternating updates (P&G §4.6) ----
    def generator_parameters(self) -> list: ...
    def discriminator_parameters(self) -> list: ...

    # ---- encoder and decoder (style: an int for the whole batch, or a [B] tensor) ----
    def encode(self, tokens: torch.Tensor, lengths: torch.Tensor, style) -> torch.Tensor:
        """tokens [B, T], lengths [B] -> the content z [B, D]."""

    def teacher_force(self, z: torch.Tensor, style, targets: torch.Tensor) -> tuple:
        """-> (hidden states [B, T+1, H], logits [B, T, V])."""

    def soft_decode(self, z: torch.Tensor, style, steps: int, gamma: float, mode: str) -> tuple:
        """-> (hidden states [B, steps+1, H], logits [B, steps, V], fed-back probabilities [B, steps, V])."""

    def greedy(self, z: torch.Tensor, style, max_len: int) -> torch.Tensor:
        """-> ids [B, <= max_len], <pad> after the first <eos>."""

    def beam(self, z: torch.Tensor, style, max_len: int, width: int) -> torch.Tensor:
        """-> ids [B, <= max_len] of the best hypothesis; width 1 is greedy()."""

    # ---- the adversarial terms (lambda_adv), per style t in (0, 1): zs[t] = encode(x_t), h_real[t] the
    # teacher-forced states of x_t, h_fake[t] the soft-decoded states of x_t transferred to 1 - t ----
    def adversary_loss(self, zs: list, h_real: list, h_fake: list) -> dict:
        """Update 1: the adversary's losses {"d0": ..., "d1": ...}, on detached inputs."""

    def adversarial_loss(self, zs: list, h_real: list, h_fake: list, d_losses: dict, threshold) -> tuple:
        """Update 2: (E and G's adversarial term, whether it enters L_total this step)."""
