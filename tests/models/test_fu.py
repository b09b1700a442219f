"""Fu et al. (2018) multi-decoder and style-embedding models (eqs. 8-12)."""

import math

import pytest
import torch

from tst.models.fu_multi_decoder import MultiDecoder
from tst.models.fu_style_embedding import StyleEmbedding
from tst.models.losses import classifier_loss, negative_entropy, nll
from tst.train.trainer import train
from tst.vocab import Vocab

torch.set_num_threads(1)


def batch():
    tokens, lengths = torch.tensor([[4, 5, 6], [7, 8, 0]]), torch.tensor([3, 2])
    return tokens, lengths, torch.tensor([[4, 5, 6, 3], [7, 8, 3, 0]])


def test_adversary_losses_known_values():
    assert classifier_loss(torch.zeros(3, 2), 1).item() == pytest.approx(math.log(2))
    # eq. 9: -H = sum p log p; uniform over 2 styles -> -log 2, confident -> about 0
    assert negative_entropy(torch.zeros(4, 2)).item() == pytest.approx(-math.log(2))
    p = 0.9
    logits = torch.tensor([[math.log(p), math.log(1 - p)]])
    assert negative_entropy(logits).item() == pytest.approx(p * math.log(p) + (1 - p) * math.log(1 - p))


def test_multi_decoder_uses_the_decoder_of_the_style():
    torch.manual_seed(0)
    m = MultiDecoder(12, emb_dim=6, content_dim=5, dropout=0.0, cls_hidden=4)
    tokens, lengths, targets = batch()
    c = m.encode(tokens, lengths)
    h, logits = m.teacher_force(c, 1, targets)
    assert c.shape == (2, 5) and h.shape == (2, 5, 5) and logits.shape == (2, 4, 12)
    (nll(logits, targets).mean() + negative_entropy(m.classify(c))).backward()
    assert m.decoders[1].weight_ih_l0.grad.abs().sum() > 0 and m.decoders[0].weight_ih_l0.grad is None
    assert m.content.gru.weight_ih_l0.grad.abs().sum() > 0
    # the classifier step (eq. 8) reads c detached: it never moves the encoder
    m.zero_grad(set_to_none=True)
    classifier_loss(m.classify(c.detach()), 0).backward()
    assert m.content.gru.weight_ih_l0.grad is None
    assert all(p.grad is not None for p in m.discriminator_parameters())


def test_style_embedding_initial_state_is_content_and_style():
    torch.manual_seed(0)
    m = StyleEmbedding(12, emb_dim=6, content_dim=5, style_dim=3, dropout=0.0, cls_hidden=4)
    tokens, lengths, targets = batch()
    c = m.encode(tokens, lengths)
    h, _ = m.teacher_force(c, 0, targets)
    assert torch.equal(h[:, 0, :5], c) and torch.equal(h[:, 0, 5:], m.style_emb.weight[0].expand(2, 3))
    g0, g1 = m.greedy(c, 0, 6), m.greedy(c, 1, 6)
    assert g0.shape[0] == 2 and g1.shape[0] == 2


@pytest.mark.parametrize("kind", ["multi_decoder", "style_embedding"])
def test_fu_models_train_and_write_transfers(tmp_path, kind):
    s0 = [["bad", "food"], ["rude", "staff", "here"], ["cold", "soup"]] * 4
    s1 = [["good", "food"], ["kind", "staff", "here"], ["warm", "soup"]] * 4
    vocab = Vocab.build(s0 + s1)
    cfg = {
        "emb_dim": 6,
        "content_dim": 8,
        "style_dim": 4,
        "cls_hidden": 4,
        "batch_size": 4,
        "epochs": 1,
        "cyc_start": 0,
        "cyc_ramp": 0,
    }  # full lambda_cyc at once
    model = train(
        cfg,
        {"model": kind, "lambda_cyc": 1.0},
        vocab,
        [s0, s1],
        [s0[:3], s1[:3]],
        tmp_path,
        seed=1,
        device="cpu",
        progress=False,
    )
    rows = (tmp_path / "losses.csv").read_text().splitlines()
    header = rows[0].split(",")
    first = dict(zip(header, rows[1].split(",")))
    assert len(rows) == 1 + 3 and first["d0"] and first["adv"] and first["cyc"] and not first["adv2"]
    assert float(first["adv"]) < 0  # a sum of two negative entropies
    assert len((tmp_path / "transfers" / "dev.ep1.0.1.txt").read_text().splitlines()) == 3
    assert type(model) is {"multi_decoder": MultiDecoder, "style_embedding": StyleEmbedding}[kind]
    with pytest.raises(ValueError, match="lambda_adv2"):
        train(
            cfg,
            {"model": kind, "lambda_adv2": 1.0},
            vocab,
            [s0, s1],
            [s0, s1],
            tmp_path / "x",
            seed=1,
            device="cpu",
            progress=False,
        )
    # the model is named by the variant, never by the settings
    with pytest.raises(ValueError, match="variant"):
        train(
            {**cfg, "model": kind},
            {"lambda_cyc": 1.0},
            vocab,
            [s0, s1],
            [s0, s1],
            tmp_path / "y",
            seed=1,
            device="cpu",
            progress=False,
        )
