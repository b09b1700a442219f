"""Loss terms of Pang & Gimpel eqs. 2-7 and Yu et al. §5.2 against values worked out by hand."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from tst.models import losses as L
from tst.models.cross_aligned import CrossAligned
from tst.vocab import Vocab

torch.set_num_threads(1)


def tiny_model(vocab_size=12, disc2=False):
    torch.manual_seed(0)
    return CrossAligned(
        vocab_size,
        emb_dim=6,
        style_dim=3,
        content_dim=5,
        dropout=0.0,
        disc_widths=(1, 2),
        disc_filters=4,
        disc2_widths=(1,),
        use_disc2=disc2,
    )


def batch():
    tokens = torch.tensor([[4, 5, 6], [7, 8, 0]])
    lengths = torch.tensor([3, 2])
    targets = torch.tensor([[4, 5, 6, 3], [7, 8, 3, 0]])
    return tokens, lengths, targets


def test_nll_is_summed_token_log_loss_ignoring_pad():
    logits = torch.zeros(1, 3, 4)
    logits[0, 0, 1] = math.log(3.0)  # p(1) = 3/6 at position 0
    targets = torch.tensor([[1, 2, 0]])  # position 2 is <pad>
    # -log(3/6) - log(1/4) (position 1: uniform over 4)
    assert L.nll(logits, targets).item() == pytest.approx(math.log(2) + math.log(4), rel=1e-6)


def test_gan_losses_known_logits():
    zero = torch.zeros(5)
    assert L.gan_d_loss(zero, zero).item() == pytest.approx(2 * math.log(2))
    big = torch.full((3,), 20.0)
    assert L.gan_d_loss(big, -big).item() == pytest.approx(2 * math.log1p(math.exp(-20)), abs=1e-8)
    # E and G minimize -L_adv (§4.6): D = 0.75 on real and fake -> -(-log 0.75 - log 0.25) = log(3/16)
    three = torch.full((2,), math.log(3.0))
    assert L.gan_g_loss(three, three).item() == pytest.approx(math.log(3 / 16))


def test_generator_adversarial_term_saturates_when_d_is_confident():
    # minimax form (Shen et al.'s loss_g - rho * loss_d): d(-L_adv)/d(fake logit) = -sigmoid(logit) / k -> 0
    # as D grows sure the transfer is fake (logit -> -inf); the non-saturating -log D(h~) would give -1 / k
    fake = torch.tensor([-10.0, 0.0], requires_grad=True)
    L.gan_g_loss(torch.zeros(2), fake).backward()
    assert fake.grad.tolist() == pytest.approx([-1 / (1 + math.exp(10)) / 2, -0.5 / 2])


def test_gradient_penalty_linear_critic_closed_form():
    # f(h) = <w, h> has gradient w everywhere: penalty = xi (|w| - 1)^2 whatever the mix point
    torch.manual_seed(1)
    w = torch.randn(4, 3)
    w = w / w.norm() * 3.0
    critic = lambda h: (h * w).sum(dim=(1, 2))
    real, fake = torch.randn(6, 4, 3), torch.randn(6, 4, 3)
    penalty = L.gradient_penalty(critic, real, fake, xi=10.0).item()
    assert penalty == pytest.approx(10 * (3.0 - 1) ** 2, rel=1e-5)
    # critic loss = mean f(fake) - mean f(real) + penalty
    expected = (fake * w).sum() / 6 - (real * w).sum() / 6 + 40.0
    assert L.wgan_critic_loss(critic, real, fake).item() == pytest.approx(expected.item(), rel=1e-5)


def test_gradient_penalty_interpolates_per_instance():
    # f(h) = 0.5 |h|^2: gradient at the mix = eps*real + (1-eps)*fake; real = 0 -> norm (1-eps)|fake|
    critic = lambda h: 0.5 * (h**2).sum(dim=(1, 2))
    real, fake = torch.zeros(2, 1, 2), torch.tensor([[[3.0, 4.0]], [[0.0, 2.0]]])
    eps = torch.tensor([0.2, 0.5]).view(2, 1, 1)
    norms = np.array([0.8 * 5.0, 0.5 * 2.0])
    expected = 10 * np.mean((norms - 1) ** 2)
    assert L.gradient_penalty(critic, real, fake, 10.0, eps).item() == pytest.approx(expected, rel=1e-6)


def test_gradient_penalty_at_the_transferred_states_as_eq7_is_printed():
    # f(h) = 0.5 |h|^2: gradient at h~ is h~ itself -> norms |h~| = 5 and 2, whatever real and eps are
    critic = lambda h: 0.5 * (h**2).sum(dim=(1, 2))
    real, fake = torch.ones(2, 1, 2), torch.tensor([[[3.0, 4.0]], [[0.0, 2.0]]])
    expected = 10 * np.mean((np.array([5.0, 2.0]) - 1) ** 2)  # 85
    assert L.gradient_penalty(critic, real, fake, 10.0, at="fake").item() == pytest.approx(expected, rel=1e-6)
    assert L.wgan_critic_loss(critic, real, fake, 10.0, at="fake").item() == pytest.approx(
        (12.5 + 2.0) / 2 - 1.0 + expected, rel=1e-6
    )
    with pytest.raises(ValueError, match="gp_at 'mid'"):
        L.gradient_penalty(critic, real, fake, at="mid")


class ToyLM(nn.Module):
    """forward_soft(p) = p @ M: next-token logits depend on the last input distribution only."""

    def __init__(self, M):
        super().__init__()
        self.M = nn.Parameter(M)

    def forward_soft(self, probs):
        return probs @ self.M


def test_lm_loss_equals_hand_cross_entropy():
    V = 5
    torch.manual_seed(2)
    M = torch.randn(V, V)
    gen_logits = torch.randn(2, 3, V)
    fed = torch.softmax(torch.randn(2, 3, V), -1)
    got = L.lm_loss(gen_logits, fed, ToyLM(M)).item()
    # by hand: LM input at position i is <bos> (i = 0) else the fed distribution of position i-1
    Mn, g, p = M.numpy().astype(np.float64), gen_logits.numpy().astype(np.float64), fed.numpy()
    total = 0.0
    for b in range(2):
        for i in range(3):
            inp = np.eye(V)[Vocab.bos_id] if i == 0 else p[b, i - 1]
            lz = inp @ Mn
            l_dist = np.exp(lz - lz.max()) / np.exp(lz - lz.max()).sum()
            log_g = g[b, i] - g[b, i].max() - np.log(np.exp(g[b, i] - g[b, i].max()).sum())
            total += -(l_dist * log_g).sum()
    assert got == pytest.approx(total / 2, rel=1e-5)


def test_lm_loss_gradient_reaches_generator_logits_only():
    V = 5
    M = torch.randn(V, V)
    lm = ToyLM(M)
    gen_logits = torch.randn(1, 2, V, requires_grad=True)
    fed = torch.softmax(torch.randn(1, 2, V), -1).requires_grad_(True)
    L.lm_loss(gen_logits, fed, lm).backward()
    assert gen_logits.grad is not None and gen_logits.grad.abs().sum() > 0
    assert fed.grad is None and lm.M.grad is None  # the LM distribution is a fixed target


def test_strip_eos():
    ids = torch.tensor([[5, 6, 3, 7], [3, 4, 4, 4], [8, 9, 10, 11]])
    tokens, lengths = L.strip_eos(ids)
    assert tokens.tolist() == [[5, 6, 0, 0], [Vocab.unk_id, 0, 0, 0], [8, 9, 10, 11]]
    assert lengths.tolist() == [2, 1, 4]


def test_shapes_and_soft_decode_at_low_temperature_matches_greedy():
    model = tiny_model()
    tokens, lengths, targets = batch()
    z = model.encode(tokens, lengths, 0)
    assert z.shape == (2, 5)
    h, logits = model.teacher_force(z, 0, targets)
    assert h.shape == (2, 5, 8) and logits.shape == (2, 4, 12)
    hs, slog, sprob = model.soft_decode(z, 1, 4, gamma=1e-4)
    assert hs.shape == (2, 5, 8) and sprob.shape == (2, 4, 12)
    assert torch.allclose(sprob.sum(-1), torch.ones(2, 4), atol=1e-5)
    greedy = model.greedy(z, 1, 4)
    # with a near-zero temperature the fed-back distribution is one-hot: the same path as argmax
    for b in range(2):
        n = greedy.size(1)
        g = greedy[b].tolist()
        s = slog[b, :n].argmax(-1).tolist()
        stop = g.index(Vocab.eos_id) + 1 if Vocab.eos_id in g else n
        assert g[:stop] == s[:stop]


def test_cyclic_loss_is_second_pass_nll_with_gradient_through_it_only():
    model = tiny_model()
    tokens, lengths, targets = batch()
    loss = L.cyclic_loss(model, tokens, lengths, targets, 0, max_len=4)
    with torch.no_grad():  # recompute by hand: argmax transfer to style 1, then back to style 0
        g = model.greedy(model.encode(tokens, lengths, 0), 1, 4).tolist()
        back = [row[: row.index(3)] if 3 in row else row for row in g]
        back = [r if r else [Vocab.unk_id] for r in back]
        T = max(len(r) for r in back)
        tt = torch.tensor([r + [0] * (T - len(r)) for r in back])
        _, lg = model.teacher_force(model.encode(tt, torch.tensor([len(r) for r in back]), 1), 0, targets)
        expected = L.nll(lg, targets).mean()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)
    loss.backward()
    assert model.encoder.weight_ih_l0.grad.abs().sum() > 0
    assert model.generator.weight_hh_l0.grad.abs().sum() > 0
    assert all(p.grad is None for p in model.disc.parameters())


def _hand_cyclic(model, tokens, lengths, targets, first_pass_training):
    """Eq. 4 by hand: the argmax transfer to style 1 (the first pass in train or eval mode), then the NLL of x
    given E(x~, 1) with the model in train mode."""
    model.train(first_pass_training)
    with torch.no_grad():
        g = model.greedy(model.encode(tokens, lengths, 0), 1, 4).tolist()
    model.train(True)
    tt, tl = L.strip_eos(torch.tensor(g))  # (test_strip_eos)
    _, lg = model.teacher_force(model.encode(tt, tl, 1), 0, targets)
    return L.nll(lg, targets).mean().item(), g


def test_cyclic_loss_decodes_the_transfer_with_dropout_off():
    """x~ is decoded as Shen et al.'s Decoder.rewrite decodes (dropout keep 1), the second pass with dropout on;
    dropout=True keeps the first pass in train mode. Each is compared with the same computation by hand from the
    same random state (an eval-mode dropout draws no random numbers)."""
    torch.manual_seed(0)
    model = CrossAligned(
        12, emb_dim=6, style_dim=3, content_dim=5, dropout=0.9, disc_widths=(1, 2), disc_filters=4
    )
    tokens, lengths, targets = batch()
    model.train()
    results = {}
    for dropout in (False, True):
        torch.manual_seed(3)
        got = L.cyclic_loss(model, tokens, lengths, targets, 0, max_len=4, dropout=dropout).item()
        assert model.training  # the mode is restored
        torch.manual_seed(3)
        expected, g = _hand_cyclic(model, tokens, lengths, targets, first_pass_training=dropout)
        assert got == pytest.approx(expected, rel=1e-5), dropout
        results[dropout] = g
    # the eval-mode transfer is the deterministic one: the same ids under another random state
    model.eval()
    with torch.no_grad():
        assert model.greedy(model.encode(tokens, lengths, 0), 1, 4).tolist() == results[False]
    # and at dropout 0.9 the train-mode transfer is another string
    assert results[True] != results[False]


def test_paraphrase_loss_is_nll_of_v_given_u():
    model = tiny_model()
    tokens, lengths, _targets = batch()
    v = torch.tensor([[9, 3], [10, 3]])
    loss = L.paraphrase_loss(model, tokens, lengths, v, 1)
    _, lg = model.teacher_force(model.encode(tokens, lengths, 1), 1, v)
    assert loss.item() == pytest.approx(L.nll(lg, v).mean().item())
    loss.backward()
    assert model.style_enc.weight.grad[1].abs().sum() > 0 and model.style_enc.weight.grad[0].abs().sum() == 0


def test_adversarial_gradients_reach_generator():
    model = tiny_model(disc2=True)
    tokens, lengths, targets = batch()
    z = model.encode(tokens, lengths, 0)
    h_real, _ = model.teacher_force(z, 0, targets)
    h_fake, _, _ = model.soft_decode(z, 1, targets.size(1), gamma=0.5)
    assert h_real.shape == h_fake.shape
    loss = L.gan_g_loss(model.disc[1](h_real), model.disc[1](h_fake)) + L.wgan_g_loss(
        model.disc2[1], h_real, h_fake
    )
    loss.backward()
    assert model.embed.weight.grad.abs().sum() > 0 and model.style_gen.weight.grad[1].abs().sum() > 0


def test_attribute_loss_known_vectors():
    out = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    indep = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    dep = torch.tensor([[0.0, 1.0], [0.0, 1.0]])
    has = torch.tensor([1.0, 1.0])
    # row 0: cos_d 0 - cos_i 1 = -1; row 1: 1/sqrt2 - 1/sqrt2 = 0
    assert L.attribute_loss(out, indep, dep, has, has).item() == pytest.approx(-0.5)
    assert L.attribute_loss(out, indep, dep, torch.tensor([0.0, 1.0]), has).item() == pytest.approx(0.0)


def test_gru_step_equals_one_step_of_the_sequence_gru():
    from tst.models.cross_aligned import gru_step

    torch.manual_seed(0)
    gru = torch.nn.GRU(5, 7, batch_first=True)
    x, h = torch.randn(3, 5), torch.randn(3, 7)
    out, last = gru(x[:, None], h[None])
    assert torch.allclose(gru_step(gru, x, h), out[:, 0], atol=1e-6)
    assert torch.allclose(gru_step(gru, x, h), last[0], atol=1e-6)
