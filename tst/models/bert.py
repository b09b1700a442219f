"""BERT (Devlin et al. 2019) as plain torch: the encoder of all-MiniLM-L6-v2, for the sentence embeddings of the
content score (tst.metrics.sbert) and the acceptability classifier (tst.models.minilm_classifier).

Why not transformers' BertModel: importing it costs ~4 s of CPU (transformers 5.23 on a 2-core Intel Xeon; torch
itself ~1.7 s), paid by every scoring job, and the evaluation stage runs 20 of them per dataset. The arithmetic
here is BertModel's (post-LayerNorm, absolute positions, exact GELU, SDPA attention), with its parameter names,
so the packaged model.safetensors and earlier acceptability checkpoints load unchanged; tests check the
outputs against sentence-transformers and transformers on the same weights.

    e_t   = LayerNorm(W_word[x_t] + W_pos[t] + W_type[0])                       (embeddings, then dropout)
    per layer l = 1..L, on h [B, T, d]:
      q, k, v = h W_q + b_q, h W_k + b_k, h W_v + b_v, split into H heads of d/H
      a     = softmax(q k^T / sqrt(d/H) + mask) v                               (mask: -inf on [PAD] keys)
      h'    = LayerNorm(h + dropout(a W_o + b_o))
      h     = LayerNorm(h' + dropout(GELU(h' W_1 + b_1) W_2 + b_2))             (W_1: d x 4d)

The sentence embedding (sentence-transformers' Transformer -> Pooling(mean) -> Normalize):
    u = sum_t m_t h_t / sum_t m_t,   e = u / ||u||                             (m: 1 on real wordpieces)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from tst.device import use_bf16
from tst.tensors import pad_ids

# evaluators.precision at inference (the sbert score, the minilm acceptability classifier scoring outputs): auto
# runs this BERT in bf16 autocast on a CPU with bf16 in hardware (tst.device.cpu_has_bf16), in fp32 on CUDA (bf16 not
# measured faster there: docs/gpu.md); fp32 runs it in fp32. Measured on a 2-core Intel Xeon with amx_bf16, 1 thread,
# the 20 Yelp systems' test outputs (docs/performance.md): sbert 2.5x and acceptability 2.5x faster; corpus scores moved by at most 8e-5 (sbert) and
# 1.5e-4 (acceptability), single sentences by at most 0.004 and 0.019. The variants name the precision used.
CPU_AUTO_BF16 = True


def inference_bf16(precision: str, device: torch.device | str = "cpu") -> bool:
    """Whether this BERT's inference runs in bf16 autocast for `precision` (auto | bf16 | fp32) on `device`."""
    return use_bf16(precision, torch.device(device), CPU_AUTO_BF16)


class Embeddings(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        d = c["hidden_size"]
        self.word_embeddings = nn.Embedding(c["vocab_size"], d, padding_idx=c.get("pad_token_id") or 0)
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], d)
        self.token_type_embeddings = nn.Embedding(c.get("type_vocab_size", 2), d)
        self.LayerNorm = nn.LayerNorm(d, eps=c.get("layer_norm_eps", 1e-12))
        self.dropout = nn.Dropout(c.get("hidden_dropout_prob", 0.1))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device)
        e = self.word_embeddings(ids) + self.token_type_embeddings.weight[0] + self.position_embeddings(pos)
        return self.dropout(self.LayerNorm(e))


class SelfAttention(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        d = c["hidden_size"]
        self.n_head, self.p = c["num_attention_heads"], c.get("attention_probs_dropout_prob", 0.1)
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, h: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        B, T, d = h.shape

        def heads(x):  # [B, T, d] -> [B, H, T, d/H]
            return x.view(B, T, self.n_head, d // self.n_head).transpose(1, 2)

        a = F.scaled_dot_product_attention(
            heads(self.query(h)),
            heads(self.key(h)),
            heads(self.value(h)),
            attn_mask=keep,
            dropout_p=self.p if self.training else 0.0,
        )
        return a.transpose(1, 2).reshape(B, T, d)


class AddNorm(nn.Module):
    """LayerNorm(residual + dropout(x W + b)): BertSelfOutput and BertOutput."""

    def __init__(self, d_in: int, c: dict):
        super().__init__()
        d = c["hidden_size"]
        self.dense = nn.Linear(d_in, d)
        self.LayerNorm = nn.LayerNorm(d, eps=c.get("layer_norm_eps", 1e-12))
        self.dropout = nn.Dropout(c.get("hidden_dropout_prob", 0.1))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(residual + self.dropout(self.dense(x)))


class Attention(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.self = SelfAttention(c)
        self.output = AddNorm(c["hidden_size"], c)


class Intermediate(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        if c.get("hidden_act", "gelu") != "gelu":
            raise ValueError(
                f"BERT config hidden_act {c.get('hidden_act')!r}: only gelu (exact, erf) is built"
            )
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(x))


class Layer(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = AddNorm(c["intermediate_size"], c)

    def forward(self, h: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        h = self.attention.output(self.attention.self(h, keep), h)
        return self.output(self.intermediate(h), h)


class Encoder(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.layer = nn.ModuleList(Layer(c) for _ in range(c["num_hidden_layers"]))


class Bert(nn.Module):
    """BertModel without the pooler: forward(ids [B, T], mask [B, T] of 1/0) -> h [B, T, d]."""

    def __init__(self, config: dict):
        super().__init__()
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("BERT config position_embedding_type: only absolute is built")
        self.config = dict(config)
        self.pad_id = int(config.get("pad_token_id") or 0)
        self.hidden_size = int(config["hidden_size"])
        self.embeddings = Embeddings(config)
        self.encoder = Encoder(config)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        keep = mask.bool()[:, None, None, :]  # [B, 1, 1, T]: queries attend to the real wordpieces only
        h = self.embeddings(ids)
        for layer in self.encoder.layer:
            h = layer(h, keep)
        return h


def mean_pool(h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """u = sum_t m_t h_t / sum_t m_t (sentence-transformers' Pooling, pooling_mode_mean_tokens)."""
    m = mask.unsqueeze(-1).to(h.dtype)
    return (h * m).sum(1) / m.sum(1).clamp_min(1e-9)


def base_state(path) -> dict:
    """A packaged BERT's model.safetensors as a Bert state dict: without the pooler (unused: mean pooling) and
    the position_ids buffer."""
    from safetensors.torch import load_file

    state = {k: v for k, v in load_file(str(path)).items() if not k.startswith("pooler.")}
    state.pop("embeddings.position_ids", None)
    return state


class SentenceEncoder:
    """A sentence-transformers model folder of Transformer (BERT) -> mean Pooling [-> Normalize], run by Bert,
    with the interface tst.metrics.sbert uses: encode(texts, batch_size, normalize_embeddings, ...), tokenizer
    and max_seq_length. As sentence-transformers does: texts longest first (by characters) in batches of
    batch_size, each padded to its longest member, wordpieces cut at max_seq_length; results in input order."""

    def __init__(self, folder):
        from tokenizers import Tokenizer

        folder = Path(folder)
        modules = [m["type"].rsplit(".", 1)[-1] for m in json.loads((folder / "modules.json").read_text())]
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        if modules[:2] != ["Transformer", "Pooling"] or not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(
                f"{folder}: not a Transformer + mean Pooling sentence model ({modules}, {pooling})"
            )
        self.normalize = "Normalize" in modules  # the model's own last module: encode always normalises
        self.max_seq_length = int(
            json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"]
        )
        self.model = Bert(json.loads((folder / "config.json").read_text())).eval()
        self.model.load_state_dict(base_state(folder / "model.safetensors"), strict=True)
        self._tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tok.enable_truncation(max_length=self.max_seq_length)
        self._tok.no_padding()

    def tokenizer(self, texts, truncation: bool = True, max_length: int | None = None) -> dict:
        """Wordpiece ids with [CLS] and [SEP], cut at max_seq_length (the arguments of transformers' tokenizer
        call are accepted for tst.metrics.sbert's measuring; the cut is always the model's)."""
        return {"input_ids": [e.ids for e in self._tok.encode_batch(list(texts))] if texts else []}

    def encode(
        self,
        texts,
        batch_size: int = 32,
        convert_to_numpy: bool = True,
        normalize_embeddings: bool = False,
        show_progress_bar: bool = False,
        bf16: bool = False,
    ) -> np.ndarray:
        """Embeddings [n, d] float32 in input order; bf16: the BERT in bf16 autocast (pooling and normalising
        in fp32), else fp32."""
        texts = list(texts)
        out = np.zeros((len(texts), self.model.hidden_size), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                ids = self.tokenizer([texts[i] for i in idx])["input_ids"]
                x = pad_ids(ids, self.model.pad_id)
                mask = (x != self.model.pad_id).long()  # [PAD] never inside a tokenized sentence
                u = mean_pool(self.model(x, mask).float(), mask)
                if normalize_embeddings or self.normalize:
                    u = F.normalize(u, p=2, dim=1)
                out[idx] = u.float().numpy()
        return out
