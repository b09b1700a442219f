"""Shen et al.'s reference-code behaviours of the transfer models (shentianxiao/language-style-transfer):
the reversed encoder input, Gumbel-softmax soft decoding, gradient clipping, the sum / 2k reconstruction
loss; our lambda_cyc warm-up; Yu et al.'s term without gradient into the embedding table; the diagnostics."""

import math

import pytest
import torch
import torch.nn.functional as F

from tst.models import cross_aligned
from tst.models.cross_aligned import CrossAligned, reverse_padded, soft_sample
from tst.models.losses import z_probe
from tst.train.batching import pad_batch
from tst.train.step import attribute_term, clip_gradients, train_step
from tst.train.trainer import DEFAULTS, cyc_factor, distinct_share
from tst.variants import resolve

torch.set_num_threads(1)
SMALL = {
    "emb_dim": 6,
    "style_dim": 3,
    "content_dim": 5,
    "dropout": 0.0,
    "disc_widths": (1, 2),
    "disc_filters": 3,
}


def test_reverse_padded_reverses_each_row_within_its_length():
    pad = 0
    tokens = torch.tensor([[5, 6, 7, pad], [8, 9, pad, pad], [4, pad, pad, pad]])
    out = reverse_padded(tokens, torch.tensor([3, 2, 1]))
    assert out.tolist() == [[7, 6, 5, pad], [9, 8, pad, pad], [4, pad, pad, pad]]


def test_encoder_sees_the_reversed_ids():
    torch.manual_seed(0)
    model = CrossAligned(20, **SMALL, reverse_input=True).eval()
    seen = []
    model.embed.register_forward_hook(lambda mod, inp, out: seen.append(inp[0].tolist()))
    tokens, lengths, targets = pad_batch([[5, 6, 7], [8, 9]])
    z = model.encode(tokens, lengths, 0)
    assert seen == [[[7, 6, 5], [9, 8, 0]]]  # <pad> is id 0
    # the same weights reading forward, fed the hand-reversed ids, give the same z
    model.reverse_input = False
    assert torch.allclose(z, model.encode(torch.tensor([[7, 6, 5], [9, 8, 0]]), lengths, 0))
    # G's targets stay forward: teacher forcing reads <bos> 5 6 7, <bos> 8 9 <eos>
    seen.clear()
    model.teacher_force(z, 0, targets)
    assert seen == [[[2, 5, 6, 7], [2, 8, 9, 3]]]  # <bos> = 2, <eos> = 3 (tst.vocab)


def test_gumbel_with_zero_noise_is_the_tempered_softmax():
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 0.0, 3.0]])
    got = soft_sample(logits, 0.5, "gumbel", noise=torch.zeros_like(logits))
    assert torch.allclose(got, F.softmax(logits / 0.5, dim=-1))
    assert torch.allclose(soft_sample(logits, 0.5, "softmax"), F.softmax(logits / 0.5, dim=-1))
    with pytest.raises(ValueError, match="soft_decoding"):
        soft_sample(logits, 0.5, "hard")


def test_gumbel_max_frequencies_follow_softmax():
    """Gumbel-max trick: argmax(v + g) ~ softmax(v); at a small temperature the Gumbel-softmax sample is
    that one-hot vector, so the mean sample approaches softmax(v) (p = e^v / sum e^v, here 0.665, 0.245, 0.090)."""
    torch.manual_seed(0)
    v = torch.log(torch.tensor([0.665, 0.245, 0.090]))
    samples = soft_sample(v.expand(40000, 3), 1e-3, "gumbel")
    assert torch.allclose(samples.mean(0), torch.tensor([0.665, 0.245, 0.090]), atol=0.01)


def test_soft_decode_gumbel_with_zero_noise_equals_softmax(monkeypatch):
    torch.manual_seed(0)
    model = CrossAligned(12, **SMALL).eval()
    z = torch.randn(2, 5)
    _, _, p_soft = model.soft_decode(z, 1, 4, 0.7, "softmax")
    monkeypatch.setattr(cross_aligned, "gumbel_noise", lambda shape, device=None: torch.zeros(shape))
    _, _, p_gumbel = model.soft_decode(z, 1, 4, 0.7, "gumbel")
    assert torch.allclose(p_soft, p_gumbel, atol=1e-6)


@pytest.mark.parametrize(
    "step, spe, start, ramp, expected",
    [
        (1, 10, 1.0, 1.0, 0.0),  # nothing done yet
        (11, 10, 1.0, 1.0, 0.0),  # exactly 1 epoch done: the ramp starts at 0
        (16, 10, 1.0, 1.0, 0.5),  # 1.5 epochs done
        (21, 10, 1.0, 1.0, 1.0),
        (100, 10, 1.0, 1.0, 1.0),  # capped
        (16, 10, 1.0, 2.0, 0.25),
        (1, 10, 0.0, 0.0, 1.0),  # no warm-up: full from the first update
        (10, 10, 1.0, 0.0, 0.0),
        (11, 10, 1.0, 0.0, 1.0),  # a step at 1 epoch
    ],
)
def test_cyc_factor(step, spe, start, ramp, expected):
    assert cyc_factor(step, spe, start, ramp) == pytest.approx(expected)


def test_clip_gradients_caps_the_global_norm():
    a, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    a.grad, b.grad = torch.tensor([3.0]), torch.tensor([4.0])  # global norm 5
    clip_gradients([a, b], 1.0)
    assert torch.allclose(torch.cat([a.grad, b.grad]), torch.tensor([0.6, 0.8]))
    clip_gradients([a, b], None)  # off: unchanged
    assert torch.allclose(torch.cat([a.grad, b.grad]), torch.tensor([0.6, 0.8]))


def _step_setup(**over):
    cfg = {**DEFAULTS, **SMALL, **over}
    torch.manual_seed(0)
    model = CrossAligned(
        15,
        cfg["emb_dim"],
        cfg["style_dim"],
        cfg["content_dim"],
        cfg["dropout"],
        cfg["disc_widths"],
        cfg["disc_filters"],
    )
    opt_g = torch.optim.Adam([p for n, p in model.named_parameters() if not n.startswith("disc")], lr=1e-3)
    opt_d = torch.optim.Adam(model.disc.parameters(), lr=1e-3)
    b0, b1 = [[4, 5, 6], [7, 8]], [[9, 10], [11, 12, 13, 14]]
    return cfg, model, opt_g, opt_d, b0, b1


def test_train_step_clips_both_updates():
    cfg, model, opt_g, opt_d, b0, b1 = _step_setup(grad_clip=1e-3)
    norms = {}
    for name, opt in (("g", opt_g), ("d", opt_d)):

        def step(opt=opt, name=name, orig=opt.step):
            grads = [p.grad for g in opt.param_groups for p in g["params"] if p.grad is not None]
            norms[name] = float(torch.cat([x.flatten() for x in grads]).norm())
            return orig()

        opt.step = step
    train_step(model, opt_g, opt_d, b0, b1, resolve({"lambda_cyc": 5}), cfg, 0, 1, 0, cyc_scale=1.0)
    assert 0 < norms["g"] <= 1e-3 * (1 + 1e-4) and 0 < norms["d"] <= 1e-3 * (1 + 1e-4)


def test_rec_is_summed_over_tokens_and_divided_by_both_styles_sentences():
    cfg, model, opt_g, opt_d, b0, b1 = _step_setup()
    with torch.no_grad():
        total, n = 0.0, 0
        for t, b in ((0, b0), (1, b1)):
            L_ = 4
            tokens, lengths, targets = pad_batch(b, L_)
            _, logits = model.teacher_force(model.encode(tokens, lengths, t), t, targets)
            logp = torch.log_softmax(logits, -1)
            for i, s in enumerate(b):
                for j, w in enumerate(s + [3]):  # the sentence's words and <eos>
                    total -= float(logp[i, j, w])
                n += 1
    terms = train_step(model, opt_g, opt_d, b0, b1, resolve({}), cfg, 0, 1, 0)
    assert n == 4 and terms["rec"] == pytest.approx(total / n, rel=1e-5)


def test_attribute_term_gives_no_gradient_to_the_embedding_table():
    torch.manual_seed(0)
    emb = torch.nn.Embedding(6, 4)
    logits = torch.randn(2, 3, 6, requires_grad=True)
    loss = attribute_term(emb.weight, F.softmax(logits, -1), [([1, 2], [3]), ([4], [])])
    loss.backward()
    assert emb.weight.grad is None
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0  # G still learns from it


class _Decoder(torch.nn.Module):
    """encode -> z = first id as a float; teacher_force's logits ignore z (uses_z False) or favour z."""

    def __init__(self, uses_z):
        super().__init__()
        self.uses_z = uses_z

    def encode(self, tokens, lengths, style):
        return tokens[:, :1].float()

    def teacher_force(self, z, style, targets):
        logits = torch.zeros(*targets.shape, 8)
        if self.uses_z:  # +2 on the word whose id is z
            logits[torch.arange(len(z)), :, z[:, 0].long()] += 2.0
        return None, logits


def test_z_probe():
    tokens, lengths, targets = pad_batch([[5], [6]])  # targets: 5 <eos>, 6 <eos>
    assert z_probe(_Decoder(False), tokens, lengths, targets, 0) == pytest.approx(0.0)
    # with its own z, the first target word has p = e^2 / (e^2 + 7), shuffled 1 / (e^2 + 7); <eos> alike
    gap = (-math.log(1 / (math.e**2 + 7))) - (-math.log(math.e**2 / (math.e**2 + 7)))
    assert z_probe(_Decoder(True), tokens, lengths, targets, 0) == pytest.approx(gap)


def test_distinct_share():
    assert distinct_share([[["a", "b"], ["a", "b"]], [["c"], ["a", "b"]]]) == pytest.approx(2 / 4)


def test_discriminator_leaky_relu_by_hand():
    """Shen et al.'s D: leaky ReLU max(0.01 x, x) (code/nn.py cnn); ours ReLU. One filter of width 1 over one
    dimension, weight 1, bias 0, so the pooled value is the activation of the largest input."""
    from tst.models.text_cnn import TextCNN

    x = torch.tensor([[[-2.0], [-3.0]]])  # [B=1, T=2, D=1]: every position negative
    outs = {}
    for slope in (0.0, 0.01):
        d = TextCNN(None, 1, (1,), 1, 1, dropout=0.0, negative_slope=slope)
        with torch.no_grad():
            d.convs[0].weight.fill_(1.0)
            d.convs[0].bias.zero_()
            d.out.weight.fill_(1.0)
            d.out.bias.zero_()
        outs[slope] = float(d(x))
    assert outs[0.0] == 0.0  # relu(-2), relu(-3) -> 0
    assert outs[0.01] == pytest.approx(-0.02)  # max(0.01 * -2, 0.01 * -3)


def test_shen_embedding_init_gives_unit_rows_and_reaches_the_model():
    from tst.models.registry import build_model

    torch.manual_seed(0)
    ours = build_model({**DEFAULTS, **SMALL, "emb_dim": 100}, 50, {})
    shen = build_model(
        {**DEFAULTS, **SMALL, "emb_dim": 100, "embedding_init": "shen", "disc_negative_slope": 0.01}, 50, {}
    )
    norms = shen.embed.weight.norm(dim=1)
    assert float(norms[0]) == 0.0  # <pad>
    assert torch.allclose(norms[1:], torch.ones(49), atol=1e-6)
    # unit rows of distinct uniform draws
    assert float(shen.embed.weight.abs().max()) <= 1.0 and float(torch.pdist(shen.embed.weight[1:]).min()) > 0
    # PyTorch's N(0, 1) rows: norm ~ sqrt(100) = 10, ~10x Shen et al.'s
    assert 8.5 < float(ours.embed.weight[1:].norm(dim=1).mean()) < 11.5
    assert [d.negative_slope for d in shen.disc] == [0.01, 0.01] and ours.disc[0].negative_slope == 0.0
    with pytest.raises(ValueError, match="transfer.embedding_init"):
        build_model({**DEFAULTS, **SMALL, "embedding_init": "xavier"}, 50, {})


def test_clip_scope_shen_clips_only_the_update_with_the_adversarial_term():
    """Shen et al.'s final code (@f078a9d style_transfer.py): grad clipped to 30 in optimize_tot (rec + rho adv)
    only; optimize_rec and the discriminators' updates unclipped. Ours (all): every update."""
    from tst.train.step import clip_generator

    assert clip_generator("all", []) and clip_generator("all", ["cyc"])
    assert clip_generator("shen", ["adv", "cyc"]) and not clip_generator("shen", ["cyc"])
    assert not clip_generator("shen", [])  # the adversarial term gated off by adv_threshold: rec-only update
    with pytest.raises(ValueError, match="transfer.grad_clip_scope"):
        clip_generator("both", ["adv"])


def test_clip_scope_decides_which_updates_are_clipped(monkeypatch):
    """train_step clips D's update and E/G's under scope all; under scope shen, E/G's only when the adversarial
    term is in L_total (both D losses below adv_threshold), D's never."""
    from tst.train import step

    calls = []
    monkeypatch.setattr(step, "clip_gradients", lambda params, limit: calls.append(len(params)))
    torch.manual_seed(0)
    model = CrossAligned(12, **SMALL)
    n_d, n_g = len(model.discriminator_parameters()), len(model.generator_parameters())
    b0, b1 = [[4, 5, 6], [5, 6]], [[7, 8], [9, 10, 11]]
    for scope, thr, expected in (
        ("all", None, [n_d, n_g]),
        ("shen", None, [n_g]),  # the adversarial term on: E/G clipped, D not
        ("shen", 0.0, []),  # gated off (no D loss is below 0): the rec-only update, unclipped
    ):
        calls.clear()
        cfg = {**DEFAULTS, **SMALL, "grad_clip_scope": scope, "adv_threshold": thr}
        opt_g = torch.optim.Adam(model.generator_parameters(), lr=1e-3)
        opt_d = torch.optim.Adam(model.discriminator_parameters(), lr=1e-3)
        train_step(model, opt_g, opt_d, b0, b1, resolve({}), cfg, 0, 1, 0)
        assert calls == expected, (scope, thr)
