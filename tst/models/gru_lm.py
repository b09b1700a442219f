"""GRU language model with dropout 0.5 (Pang & Gimpel 2019: PP metric and the frozen LMs of eq. 6).

Input starts with <bos>, targets end with <eos>: p(x) = prod_t p(x_t | <bos>, x_<t).

The output layer p(w | h) is one of two exact, normalized distributions over the whole vocabulary:
- softmax "full": p(w | h) = softmax(W h + b)_w over all V words (P&G; 2 H V multiply-adds per token);
- softmax "adaptive" (Grave et al. 2017, torch's AdaptiveLogSoftmaxWithLoss): the ids are most-frequent-first
  (tst.vocab.Vocab.from_counts); cutoffs c_1 < ... < c_k split them into a head [0, c_1) and tail clusters
  [c_i, c_{i+1}). The head is a softmax over its c_1 words plus one entry per cluster; a word w of cluster i has
      p(w | h) = p_head(cluster i | h) * p_i(w | h),   p_i = softmax over the cluster's words of W_i P_i h,
  with the cluster's projection P_i of width H / div_value^i. The sum over all V words is 1, so a perplexity
  keeps its meaning; training costs H (c_1 + k) per token plus the tail clusters of the batch's tail words.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

SOFTMAX_KINDS = ("full", "adaptive")


class GRULanguageModel(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        n_layers: int = 1,
        dropout: float = 0.5,
        softmax: str = "full",
        cutoffs: tuple[int, ...] | list[int] = (),
        div_value: float = 4.0,
    ):
        super().__init__()
        if softmax not in SOFTMAX_KINDS:
            raise ValueError(f"softmax {softmax!r}: expected one of {SOFTMAX_KINDS}")
        self.softmax = softmax
        self.embedding = nn.Embedding(vocab_size, emb_dim)
        self.drop = nn.Dropout(dropout)
        self.gru = nn.GRU(
            emb_dim, hidden_dim, n_layers, batch_first=True, dropout=dropout if n_layers > 1 else 0.0
        )
        if softmax == "full":
            self.out = nn.Linear(hidden_dim, vocab_size)
        else:
            self.out = nn.AdaptiveLogSoftmaxWithLoss(
                hidden_dim, vocab_size, list(cutoffs), div_value=div_value
            )

    def hidden(self, input_ids: torch.Tensor, h0: torch.Tensor | None = None) -> torch.Tensor:
        """input_ids [B, T] -> the output layer's inputs [B, T, H] (after dropout)."""
        return self._hidden(self.embedding(input_ids), h0)

    def _hidden(self, x: torch.Tensor, h0: torch.Tensor | None) -> torch.Tensor:
        h, _ = self.gru(self.drop(x), h0)
        return self.drop(h)

    def scores(self, h: torch.Tensor) -> torch.Tensor:
        """h [..., H] -> [..., V] scores whose softmax is p(. | h): logits (full) or log p (adaptive)."""
        if self.softmax == "full":
            return self.out(h)
        flat = h.reshape(-1, h.shape[-1])
        head = F.log_softmax(self.out.head(flat).float(), -1)  # [N, c_1 + k]
        c1 = self.out.shortlist_size
        parts = [head[:, :c1]]
        for i, tail in enumerate(self.out.tail):  # log p(w) = log p_head(cluster i) + log p_i(w)
            parts.append(head[:, c1 + i : c1 + i + 1] + F.log_softmax(tail(flat).float(), -1))
        return torch.cat(parts, -1).reshape(*h.shape[:-1], -1)

    def forward(self, input_ids: torch.Tensor, h0: torch.Tensor | None = None) -> torch.Tensor:
        """input_ids [B, T] -> next-token scores [B, T, V] (softmax over V gives p; causal, so right padding
        never leaks back)."""
        return self.scores(self.hidden(input_ids, h0))

    def next_scores(self, input_ids: torch.Tensor, state: torch.Tensor | None = None):
        """Sampling, one word at a time: input_ids [B, T] (the prefix, then each sampled word alone) and the GRU
        state after the words before them -> (scores [B, V] of the word after the last, the state after it).
        No dropout: the model is sampled in eval mode."""
        h, state = self.gru(self.embedding(input_ids), state)
        return self.scores(h[:, -1]), state

    def forward_soft(self, probs: torch.Tensor, h0: torch.Tensor | None = None) -> torch.Tensor:
        """probs [B, T, V], distributions over the vocabulary (e.g. decoder softmax outputs, eq. 6),
        embedded as probs @ E -> scores [B, T, V]. Gradients flow into probs."""
        return self.scores(self._hidden(probs @ self.embedding.weight, h0))

    def target_nll(self, input_ids: torch.Tensor, targets: torch.Tensor, pad_id: int) -> torch.Tensor:
        """-log p(target | prefix) [B, T] at every non-pad target, 0 at pad targets. The adaptive softmax
        computes only the rows it needs: the head for every token, a tail cluster for its own words."""
        h = self.hidden(input_ids)
        if self.softmax == "full":
            nll = F.cross_entropy(self.out(h).transpose(1, 2), targets, reduction="none")
            return nll.masked_fill(targets == pad_id, 0.0)
        keep = targets != pad_id
        nll = torch.zeros(targets.shape, dtype=torch.float32, device=targets.device)
        if not keep.any():
            return nll
        hk, tk = h[keep], targets[keep]
        head = F.log_softmax(self.out.head(hk).float(), -1)  # [N, c_1 + k], in fp32 under bf16 autocast
        c1, bounds = self.out.shortlist_size, self.out.cutoffs  # cutoffs end with V
        in_head = tk < c1
        logp = torch.zeros(tk.shape, dtype=torch.float32, device=tk.device)
        logp[in_head] = head[in_head, tk[in_head]]
        for i, tail in enumerate(self.out.tail):
            rows = (tk >= bounds[i]) & (tk < bounds[i + 1])
            if rows.any():
                local = F.log_softmax(tail(hk[rows]).float(), -1)
                word = (tk[rows] - bounds[i]).unsqueeze(1)
                logp[rows] = head[rows, c1 + i] + local.gather(1, word).squeeze(1)
        nll[keep] = -logp
        return nll
