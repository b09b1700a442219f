"""Length-bucketed two-style batches (Shen et al.'s scheme): each batch holds k sentences of style 0 and
k of style 1 of similar lengths. The plan of an epoch is a pure function of (seed, epoch), so a resumed
run replays exactly the batches an uninterrupted run would have seen."""

from __future__ import annotations

import numpy as np
import torch

from tst.vocab import Vocab


def epoch_plan(lengths0, lengths1, batch_size: int, seed: int, epoch: int):
    """-> list of (indices into corpus 0, indices into corpus 1), batch order shuffled.

    The smaller corpus is topped up by sampling with replacement so both have max(n0, n1) items; each is
    shuffled, then stably sorted by length, and the i-th chunks of the two are paired."""
    rng = np.random.default_rng([seed, epoch])
    n = max(len(lengths0), len(lengths1))

    def order(lengths):
        lengths = np.asarray(lengths)
        idx = rng.permutation(len(lengths))
        if len(lengths) < n:
            idx = np.concatenate([idx, rng.integers(0, len(lengths), n - len(lengths))])
        return idx[np.argsort(lengths[idx], kind="stable")]

    o0, o1 = order(lengths0), order(lengths1)
    batches = [(o0[i : i + batch_size], o1[i : i + batch_size]) for i in range(0, n, batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


def steps_per_epoch(n0: int, n1: int, batch_size: int) -> int:
    return -(-max(n0, n1) // batch_size)


def pad_batch(seqs, length: int | None = None, device=None):
    """Id lists -> (tokens [B, L] padded, lengths [B], targets [B, L+1] = tokens + <eos>)."""
    L = max(length or 0, max(len(s) for s in seqs), 1)
    tokens = torch.full((len(seqs), L), Vocab.pad_id, dtype=torch.long)
    targets = torch.full((len(seqs), L + 1), Vocab.pad_id, dtype=torch.long)
    for i, s in enumerate(seqs):
        tokens[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        targets[i, : len(s)] = tokens[i, : len(s)]
        targets[i, len(s)] = Vocab.eos_id
    lengths = torch.tensor([max(len(s), 1) for s in seqs], dtype=torch.long)
    return tokens.to(device), lengths.to(device), targets.to(device)
