"""Tensors from token ids, shared by the models (tst.models.bert) and the evaluators' training and scoring."""

from __future__ import annotations

import torch


def pad_ids(seqs: list[list[int]], pad_id: int = 0, min_len: int = 1) -> torch.Tensor:
    """Right-pad id lists into a LongTensor [B, max(T, min_len)]."""
    t = max(min_len, max((len(s) for s in seqs), default=0))
    out = torch.full((len(seqs), t), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return out
