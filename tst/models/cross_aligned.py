"""Cross-aligned autoencoder of Shen et al. (2017) as used by Pang & Gimpel (2019) §4.

E(x, y) -> z: a GRU whose initial state is [y_enc, 0]; z is the content part of its last state.
G(y, z): a GRU whose initial state is [y_gen, z]. The sequences of G's hidden states (initial state
included) are what the discriminators see (eq. 3): teacher-forced for real sentences, soft-decoded
(previous output distribution fed back as probs @ embedding, temperature gamma) for transferred ones.
As in Shen et al.'s code (utils.get_batch: enc_inputs = rev_x) E reads the sentence reversed
(reverse_input); G's targets stay forward.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from tst.models import losses as L
from tst.models.text_cnn import TextCNN
from tst.vocab import Vocab


def gru_step(gru: nn.GRU, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """One time step of a one-layer nn.GRU as a GRU cell on its own weights: x [B, E], h [B, H] -> h' [B, H].
    Equal to gru(x[:, None], h[None]) but without the sequence call's per-call setup, which the sequential
    soft and greedy decoding loops pay once per word (measured by bench/profile_transfer.py of commit 718e3bd)."""
    return torch.gru_cell(x, h, gru.weight_ih_l0, gru.weight_hh_l0, gru.bias_ih_l0, gru.bias_hh_l0)


SOFT_DECODING = ("gumbel", "softmax")


def reverse_padded(tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Each row's first lengths[i] ids reversed, padding kept at the end: [[1, 2, 3, pad]] -> [[3, 2, 1, pad]].
    With a packed GRU this is what Shen et al. feed E (utils.get_batch: padding + sent[::-1], left-padded)."""
    T = tokens.size(1)
    pos = torch.arange(T, device=tokens.device).unsqueeze(0)
    n = lengths.clamp(min=1).unsqueeze(1).to(tokens.device)
    src = torch.where(pos < n, n - 1 - pos, pos)
    return tokens.gather(1, src)


def gumbel_noise(shape, device=None, eps: float = 1e-20) -> torch.Tensor:
    """g = -log(-log(U + eps) + eps), U ~ U[0, 1) (Shen et al.'s nn.gumbel_softmax)."""
    u = torch.rand(shape, device=device)
    return -torch.log(-torch.log(u + eps) + eps)


def soft_sample(
    logits: torch.Tensor, gamma: float, mode: str = "gumbel", noise: torch.Tensor | None = None
) -> torch.Tensor:
    """The distribution G feeds back while soft-decoding.
    gumbel: softmax((logits + g) / gamma), g Gumbel noise (every version of Shen et al.'s code: nn.softsample_word);
    softmax: softmax(logits / gamma) (Shen et al. 2017's text; nn.softmax_word in their code, unused).
    `noise` replaces the drawn g (tests)."""
    if mode == "softmax":
        return F.softmax(logits / gamma, dim=-1)
    if mode != "gumbel":
        raise ValueError(f"transfer.soft_decoding must be one of {', '.join(SOFT_DECODING)}, not {mode!r}")
    if noise is None:
        noise = gumbel_noise(logits.shape, logits.device)
    return F.softmax((logits.float() + noise) / gamma, dim=-1).to(logits.dtype)


EMBEDDING_INITS = ("torch", "shen")


def init_embedding(embed: nn.Embedding, how: str) -> None:
    """torch: nn.Embedding's N(0, 1) rows (norm ~ sqrt(emb_dim): ~10 at 100 dims). shen: Shen et al.'s
    code/vocab.py, each row drawn uniform in [-0.5, 0.5) and scaled to unit L2 norm (the <pad> row stays 0, as
    nn.Embedding keeps it: padding carries no input)."""
    if how == "torch":
        return
    if how != "shen":
        raise ValueError(f"transfer.embedding_init must be one of {', '.join(EMBEDDING_INITS)}, not {how!r}")
    with torch.no_grad():
        w = torch.rand_like(embed.weight) - 0.5
        w /= w.norm(dim=1, keepdim=True)
        if embed.padding_idx is not None:
            w[embed.padding_idx] = 0.0
        embed.weight.copy_(w)


class GRUDecoding(nn.Module):
    """Teacher forcing, soft decoding, greedy and beam decoding of a GRU decoder; the model supplies embed, drop,
    init_state(z, style), decoder(style) -> (nn.GRU, output nn.Linear) and discriminator_parameters(). Shared
    by Fu et al.'s models."""

    # False: the plain path. True (set by tst.train.graph_step while it runs or captures the step): no tensor is
    # read back to the host, as a CUDA graph needs: greedy decodes all max_len steps instead of stopping when
    # every row has ended (the rows that ended hold <pad>, as they do), and CrossAligned.encode reads z at each
    # row's last word of the GRU run over the padded batch instead of packing by lengths on the host.
    graph_safe = False

    def generator_parameters(self):
        """E and G: every parameter that is not the adversary's."""
        d = {id(p) for p in self.discriminator_parameters()}
        return [p for p in self.parameters() if id(p) not in d]

    def teacher_force(self, z: torch.Tensor, style, targets: torch.Tensor):
        """Feed <bos> + targets[:, :-1]; targets [B, T] end in <eos>. -> (h [B, T+1, H], logits [B, T, V])."""
        h0 = self.init_state(z, style)
        bos = targets.new_full((targets.size(0), 1), Vocab.bos_id)
        inputs = torch.cat([bos, targets[:, :-1]], dim=1)
        gru, proj = self.decoder(style)
        out, _ = gru(self.drop(self.embed(inputs)), h0.unsqueeze(0))
        logits = proj(self.drop(out))
        return torch.cat([h0.unsqueeze(1), out], dim=1), logits

    def soft_decode(self, z: torch.Tensor, style, steps: int, gamma: float, mode: str = "softmax"):
        """Unfold G feeding back soft_sample(logits, gamma, mode) @ embedding (Shen et al.'s professor forcing).

        -> (h [B, steps+1, H] with the initial state first, logits [B, steps, V], probs [B, steps, V])."""
        gru, proj = self.decoder(style)
        h = self.init_state(z, style)
        hs, logits, probs = [h], [], []
        inp = self.embed(z.new_full((z.size(0),), Vocab.bos_id, dtype=torch.long))
        for _ in range(steps):
            h = gru_step(gru, self.drop(inp), h)
            logit = proj(self.drop(h))
            prob = soft_sample(logit, gamma, mode)
            inp = prob @ self.embed.weight
            hs.append(h)
            logits.append(logit)
            probs.append(prob)
        return torch.stack(hs, 1), torch.stack(logits, 1), torch.stack(probs, 1)

    @torch.no_grad()
    def greedy(self, z: torch.Tensor, style, max_len: int) -> torch.Tensor:
        """Argmax decoding -> ids [B, <= max_len]; after the first <eos> a row holds <pad>."""
        gru, proj = self.decoder(style)
        h = self.init_state(z, style)
        inp = z.new_full((z.size(0),), Vocab.bos_id, dtype=torch.long)
        done = torch.zeros(z.size(0), dtype=torch.bool, device=z.device)
        out_ids = []
        for _ in range(max_len):
            h = gru_step(gru, self.drop(self.embed(inp)), h)
            nxt = proj(self.drop(h)).argmax(-1)
            nxt = nxt.masked_fill(done, Vocab.pad_id)
            out_ids.append(nxt)
            done = done | (nxt == Vocab.eos_id)
            inp = nxt
            if not self.graph_safe and bool(done.all()):
                break
        return torch.stack(out_ids, 1)

    @torch.no_grad()
    def beam(self, z: torch.Tensor, style, max_len: int, width: int) -> torch.Tensor:
        """Beam search, batched: per sentence the `width` best prefixes by log p(y_1..y_t | z, style) (a sum,
        no length normalisation, as Shen et al.'s code/beam_search.py), each extended by its `width` most likely
        words; a prefix that emits <eos> is finished and carried on unchanged (<pad>, log-probability 0). Shen's
        code instead decodes every hypothesis for max_len steps and scores the words after <eos> too; we score
        the sentence the metrics read. -> ids [B, <= max_len] of the best hypothesis, <pad> after its <eos>;
        width 1 is greedy()."""
        gru, proj = self.decoder(style)
        h = self.init_state(z, style)
        B, H = h.shape
        h = h.repeat_interleave(width, 0)  # [B * W, H]: beam k of sentence b at row b * W + k
        scores = torch.full((B, width), float("-inf"), device=z.device)
        scores[:, 0] = 0.0  # one live prefix (<bos>) to start, so the first step's W words are distinct
        finished = torch.zeros(B, width, dtype=torch.bool, device=z.device)
        seqs = torch.zeros(B, width, 0, dtype=torch.long, device=z.device)
        inp = z.new_full((B * width,), Vocab.bos_id, dtype=torch.long)
        for _ in range(max_len):
            h = gru_step(gru, self.drop(self.embed(inp)), h)
            logp = F.log_softmax(proj(self.drop(h)).float(), dim=-1).view(B, width, -1)
            V = logp.size(-1)
            pad_only = torch.full((V,), float("-inf"), device=z.device)
            pad_only[Vocab.pad_id] = 0.0
            logp = torch.where(finished.unsqueeze(-1), pad_only, logp)
            top, flat = (scores.unsqueeze(-1) + logp).view(B, width * V).topk(width, dim=-1)
            src, tok = flat // V, flat % V  # which prefix each new hypothesis extends, and with which word
            scores = top
            seqs = torch.cat([seqs.gather(1, src.unsqueeze(-1).expand_as(seqs)), tok.unsqueeze(-1)], dim=2)
            finished = finished.gather(1, src) | (tok == Vocab.eos_id)
            h = h.view(B, width, H).gather(1, src.unsqueeze(-1).expand(B, width, H)).reshape(B * width, H)
            inp = tok.reshape(-1)
            if bool(finished.all()):
                break
        best = scores.argmax(dim=1)  # finished or cut at max_len, as greedy() cuts
        return seqs[torch.arange(B, device=z.device), best]


class CrossAligned(GRUDecoding):
    """Shen et al.'s encoder/generator plus the discriminator pairs D (eq. 3) and D' (eq. 7)."""

    adversary_reads_transfer = True  # D_t reads the soft-decoded transfers h~ (eq. 3)

    @classmethod
    def from_settings(cls, s: dict, vocab_size: int, variant) -> CrossAligned:
        """The WGAN critics D' only when the variant's lambda_adv2 > 0; the .get defaults: checkpoints from
        before the key."""
        return cls(
            vocab_size,
            s["emb_dim"],
            s["style_dim"],
            s["content_dim"],
            s["dropout"],
            s["disc_widths"],
            s["disc_filters"],
            s["disc2_widths"],
            use_disc2=variant["lambda_adv2"] > 0,
            reverse_input=s.get("reverse_encoder", False),
            disc_negative_slope=s.get("disc_negative_slope", 0.0),
            embedding_init=s.get("embedding_init", "torch"),
        )

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int = 100,
        style_dim: int = 200,
        content_dim: int = 500,
        dropout: float = 0.5,
        disc_widths=(3, 4, 5),
        disc_filters: int = 128,
        disc2_widths=(1, 2, 3),
        use_disc2: bool = False,
        reverse_input: bool = True,
        disc_negative_slope: float = 0.0,
        embedding_init: str = "torch",
    ):
        super().__init__()
        self.reverse_input = reverse_input
        self.style_dim, self.content_dim = style_dim, content_dim
        hidden = style_dim + content_dim
        self.hidden_dim = hidden
        self.embed = nn.Embedding(vocab_size, emb_dim, padding_idx=Vocab.pad_id)
        init_embedding(self.embed, embedding_init)
        self.style_enc = nn.Embedding(2, style_dim)  # y in E(x, y)
        self.style_gen = nn.Embedding(2, style_dim)  # y in G(y, z)
        self.encoder = nn.GRU(emb_dim, hidden, batch_first=True)
        self.generator = nn.GRU(emb_dim, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, vocab_size)
        self.drop = nn.Dropout(dropout)
        # D_0, D_1 (eq. 3) and, for M6/M7, the WGAN critics D'_0, D'_1 (eq. 7)
        # (Kim 2014 CNNs over hidden-state sequences [B, T, H], one logit / critic score each: [B, 1])
        slope = disc_negative_slope  # Shen et al.'s D: leaky ReLU, 0.01
        self.disc = nn.ModuleList(
            TextCNN(None, hidden, disc_widths, disc_filters, 1, dropout, negative_slope=slope)
            for _ in range(2)
        )
        self.disc2 = (
            nn.ModuleList(
                TextCNN(None, hidden, disc2_widths, disc_filters, 1, dropout, negative_slope=slope)
                for _ in range(2)
            )
            if use_disc2
            else None
        )

    # ---- parameter groups for the alternating updates (§4.6) ----
    def discriminator_parameters(self):
        params = list(self.disc.parameters())
        if self.disc2 is not None:
            params += list(self.disc2.parameters())
        return params

    # ---- the adversarial terms (eq. 3): D_t separates h_t (real, style t) from h~_{1-t} (x_{1-t} transferred
    # to style t) ----
    def adversary_loss(self, zs, h_real, h_fake) -> dict:
        """Update 1: L_adv_t of D_t on detached states."""
        return {
            f"d{t}": L.gan_d_loss(self.disc[t](h_real[t].detach()), self.disc[t](h_fake[1 - t].detach()))
            for t in (0, 1)
        }

    def adversarial_loss(self, zs, h_real, h_fake, d_losses, threshold):
        """Update 2: -(L_adv0 + L_adv1), in L_total only while both D losses are below `threshold` (Shen et
        al.; None: always)."""
        adv = sum(L.gan_g_loss(self.disc[t](h_real[t]), self.disc[t](h_fake[1 - t])) for t in (0, 1))
        on = threshold is None or all(float(d_losses[f"d{t}"].detach()) < threshold for t in (0, 1))
        return adv, on

    # ---- E and G ----
    def _style(self, table: nn.Embedding, style, batch: int, device) -> torch.Tensor:
        if isinstance(style, int):
            style = torch.full((batch,), style, dtype=torch.long, device=device)
        return table(style)

    def encode(self, tokens: torch.Tensor, lengths: torch.Tensor, style) -> torch.Tensor:
        """z = E(x, y): tokens [B, T] (no <bos>/<eos>, padded), lengths [B] >= 1 -> z [B, content_dim].
        With reverse_input E reads x from its last word to its first (Shen et al.)."""
        B = tokens.size(0)
        if self.reverse_input:
            tokens = reverse_padded(tokens, lengths)
        h0 = torch.cat(
            [
                self._style(self.style_enc, style, B, tokens.device),
                tokens.new_zeros(B, self.content_dim, dtype=self.embed.weight.dtype),
            ],
            dim=1,
        )
        emb = self.drop(self.embed(tokens))
        if self.graph_safe:
            # the GRU is causal: its state at a row's last word is the state the packed run ends in
            out, _ = self.encoder(emb, h0.unsqueeze(0).to(emb.dtype))
            last = (lengths.clamp(min=1) - 1).to(out.device).view(-1, 1, 1).expand(-1, 1, out.size(2))
            return out.gather(1, last)[:, 0, self.style_dim :]
        packed = nn.utils.rnn.pack_padded_sequence(
            emb, lengths.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False
        )
        _, h = self.encoder(packed, h0.unsqueeze(0).to(emb.dtype))
        return h[0, :, self.style_dim :]

    def init_state(self, z: torch.Tensor, style) -> torch.Tensor:
        return torch.cat([self._style(self.style_gen, style, z.size(0), z.device).to(z.dtype), z], dim=1)

    def decoder(self, style):
        """G's recurrent cell and output layer (one generator shared by both styles)."""
        return self.generator, self.proj
