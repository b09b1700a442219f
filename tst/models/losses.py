"""Every loss term of the transfer models, written once: Pang & Gimpel (2019) §4 (eqs. 2-7), Fu et al.'s
(2018) adversarial content classifier (eqs. 8-9) and Yu et al. (2021) §5.2; for any model exposing
encode / teacher_force / soft_decode / greedy (see tst/models/cross_aligned.py)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from tst.vocab import Vocab


def nll(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """-log p(targets) per sentence [B]: token log losses summed, <pad> ignored."""
    ce = F.cross_entropy(logits.float().transpose(1, 2), targets, ignore_index=Vocab.pad_id, reduction="none")
    return ce.sum(1)


def gan_d_loss(d_real: torch.Tensor, d_fake: torch.Tensor) -> torch.Tensor:
    """Eq. 3 for D_t: -mean log D(h_t) - mean log(1 - D(h~_{1-t})); inputs are logits."""
    d_real, d_fake = d_real.float(), d_fake.float()
    return F.binary_cross_entropy_with_logits(
        d_real, torch.ones_like(d_real)
    ) + F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))


def gan_g_loss(d_real: torch.Tensor, d_fake: torch.Tensor) -> torch.Tensor:
    """E and G's side of eq. 3 (§4.6: L_total contains -lambda_5 (L_adv0 + L_adv1)): -L_adv_t, the
    discriminator's loss negated, through both the real and the transferred hidden states. This is the
    saturating minimax form of Shen et al.; its gradient vanishes when D_t is confident, the weakness that
    Pang & Gimpel's WGAN pair D' (eq. 7) addresses."""
    return -gan_d_loss(d_real, d_fake)


GP_POINTS = ("interpolates", "fake")


def gradient_penalty(
    critic,
    real: torch.Tensor,
    fake: torch.Tensor,
    xi: float = 10.0,
    eps: torch.Tensor | None = None,
    at: str = "interpolates",
) -> torch.Tensor:
    """The WGAN-GP penalty xi * mean (||grad_h^ D'(h^)||_2 - 1)^2. at="interpolates": h^ = eps h + (1 - eps) h~
    with eps ~ U[0, 1] per instance, Gulrajani et al.'s (2017) WGAN-GP, the point of Pang & Gimpel's eq. 7
    (its h^ is the interpolate); at="fake": h^ = h~, the transferred states (ours, an ablation)."""
    if at not in GP_POINTS:
        raise ValueError(f"gp_at {at!r}: one of {', '.join(GP_POINTS)}")
    if at == "fake":
        mixed = fake.detach().clone().requires_grad_(True)
    else:
        if eps is None:
            eps = torch.rand(real.size(0), *([1] * (real.dim() - 1)), device=real.device, dtype=real.dtype)
        mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(mixed).float().sum(), mixed, create_graph=True)
    norm = grad.float().flatten(1).norm(dim=1)
    return xi * ((norm - 1) ** 2).mean()


def wgan_critic_loss(
    critic, real: torch.Tensor, fake: torch.Tensor, xi: float = 10.0, at: str = "interpolates"
) -> torch.Tensor:
    """Eq. 7 for D'_t: mean D'(h~) - mean D'(h) + gradient penalty (at: gradient_penalty)."""
    return (
        critic(fake).float().mean()
        - critic(real).float().mean()
        + gradient_penalty(critic, real, fake, xi, at=at)
    )


def wgan_g_loss(critic, real: torch.Tensor, fake: torch.Tensor) -> torch.Tensor:
    """E and G minimize -L_adv' (§4.6) without the penalty: mean D'(h) - mean D'(h~)."""
    return critic(real).float().mean() - critic(fake).float().mean()


def classifier_loss(logits: torch.Tensor, style: int) -> torch.Tensor:
    """Fu et al. eq. 8, the adversarial classifier's loss: -log p(l | Encoder(x)) with l the style of x
    (mean over the batch); logits [B, 2] = MLP(c)."""
    labels = torch.full((logits.size(0),), style, dtype=torch.long, device=logits.device)
    return F.cross_entropy(logits.float(), labels)


def negative_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Fu et al. eq. 9, the encoder's adversarial loss: -H(p(. | Encoder(x))) = sum_l p log p (mean over the
    batch); minimal (-log 2) when the classifier cannot tell the style from c."""
    logp = F.log_softmax(logits.float(), dim=-1)
    return (logp.exp() * logp).sum(-1).mean()


def strip_eos(ids: torch.Tensor):
    """Greedy outputs [B, L] -> (tokens [B, L'] with <eos> and after set to <pad>, lengths [B] >= 1)."""
    is_eos = ids == Vocab.eos_id
    after = is_eos.long().cumsum(1) > 0
    tokens = ids.masked_fill(after, Vocab.pad_id)
    lengths = (~after & (ids != Vocab.pad_id)).sum(1)
    empty = lengths == 0  # an immediate <eos>: encode a single <unk> rather than nothing
    tokens[:, 0] = torch.where(empty, Vocab.unk_id, tokens[:, 0])  # no host read of `empty` (CUDA graphs)
    return tokens, lengths.clamp(min=1)


def cyclic_loss(
    model, tokens, lengths, targets, style: int, max_len: int, dropout: bool = False
) -> torch.Tensor:
    """Eq. 4: x~ = argmax G(y_{1-t}, E(x, y_t)) without gradient; then -log p_G(x | y_t, E(x~, y_{1-t})).
    dropout False: x~ is decoded with dropout off (eval mode), as Shen et al.'s only way to transfers as words,
    Decoder.rewrite, feeds dropout keep 1 (shentianxiao/language-style-transfer@c9c1dca code/greedy_decoding.py
    l. 13); the second pass keeps the model's mode. True: x~ in the model's mode too (dropout on in training)."""
    was_training = model.training
    with torch.no_grad():
        model.train(was_training and dropout)
        z = model.encode(tokens, lengths, style)
        tilde, tilde_len = strip_eos(model.greedy(z, 1 - style, max_len))
        model.train(was_training)
    z_back = model.encode(tilde, tilde_len, 1 - style)
    _, logits = model.teacher_force(z_back, style, targets)
    return nll(logits, targets).mean()


def paraphrase_loss(model, u_tokens, u_lengths, v_targets, style: int) -> torch.Tensor:
    """Eq. 5: -log p_G(v | y_t, E(u, y_t)) for same-style pairs <u, v>."""
    _, logits = model.teacher_force(model.encode(u_tokens, u_lengths, style), style, v_targets)
    return nll(logits, v_targets).mean()


def lm_loss(gen_logits: torch.Tensor, fed_probs: torch.Tensor, lm) -> torch.Tensor:
    """Eq. 6: sum_i CE(l_i, g_i) with l_i = p_LM(. | x~_{1:i-1}), g_i = p_G(. | x~_{1:i-1}, ...).

    gen_logits [B, T, V]: G's logits along the soft-decoded transfer; fed_probs [B, T, V]: the distributions
    G fed back (x~_1..x~_T). The frozen LM reads <bos>, x~_1..x~_{T-1} as soft inputs; its distribution is the
    fixed target (no gradient through the LM side). Summed over positions, averaged over sentences."""
    B, _, V = fed_probs.shape
    bos = F.one_hot(torch.full((B, 1), Vocab.bos_id, device=fed_probs.device), V).to(fed_probs.dtype)
    with torch.no_grad():
        lm_in = torch.cat([bos, fed_probs[:, :-1]], dim=1)
        target = F.softmax(lm.forward_soft(lm_in).float(), dim=-1)
    return -(target * F.log_softmax(gen_logits.float(), dim=-1)).sum(-1).sum(1).mean()


def attribute_loss(
    out_repr: torch.Tensor,
    indep_repr: torch.Tensor,
    dep_repr: torch.Tensor,
    has_indep: torch.Tensor,
    has_dep: torch.Tensor,
) -> torch.Tensor:
    """Yu et al. §5.2: pull E(y) towards E(i) (attribute-independent words), push it from E(d) (dependent).

    Written as the text describes it: loss = SIM(E(y), E(d)) - SIM(E(y), E(i)) (the printed equation has
    the two terms the other way round, which would reward the opposite). Rows without a list add 0."""
    sim_i = F.cosine_similarity(out_repr, indep_repr, dim=-1) * has_indep
    sim_d = F.cosine_similarity(out_repr, dep_repr, dim=-1) * has_dep
    return (sim_d - sim_i).mean()


@torch.no_grad()
def z_probe(model, tokens, lengths, targets, style: int) -> float:
    """How much G uses the content z: mean -log p_G(x | y, z) with each row's z taken from the next row
    (torch.roll, a fixed derangement: no random draw) minus with its own z, in nats per sentence, eval mode.
    About 0 when G ignores z; needs >= 2 rows."""
    was_training = model.training
    model.eval()
    z = model.encode(tokens, lengths, style)
    _, own = model.teacher_force(z, style, targets)
    _, other = model.teacher_force(torch.roll(z, 1, dims=0), style, targets)
    model.train(was_training)
    return float(nll(other, targets).mean() - nll(own, targets).mean())
