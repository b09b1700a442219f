"""Shapes and invariances of the evaluator networks (Kim CNN, LSTM-sigmoid, GRU LM)."""

import pytest
import torch

from tst.models.gru_lm import GRULanguageModel
from tst.models.lstm_classifier import LSTMClassifier
from tst.models.text_cnn import TextCNN


def test_text_cnn_shapes_ids_and_embedded():
    torch.manual_seed(0)
    cnn = TextCNN(50, emb_dim=8, widths=(3, 4, 5), n_filters=6, n_out=2).eval()
    ids = torch.tensor([[5, 6, 7, 8, 9, 10], [4, 5, 0, 0, 0, 0]])  # second sentence shorter than widths
    assert cnn(ids).shape == (2, 2)
    # a discriminator over hidden states: no embedding table, custom widths and output size
    disc = TextCNN(None, emb_dim=16, widths=(1, 2, 3), n_filters=4, n_out=1).eval()
    h = torch.randn(3, 7, 16)
    assert disc(h).shape == (3, 1)
    assert disc(h, mask=torch.ones(3, 7, dtype=torch.bool)).shape == (3, 1)


def test_text_cnn_output_does_not_depend_on_padding():
    torch.manual_seed(0)
    cnn = TextCNN(50, emb_dim=8, n_filters=6).eval()
    for sent in ([5, 6, 7, 8, 9, 10, 11], [5, 6]):
        alone = cnn(torch.tensor([sent]))
        padded = cnn(torch.tensor([sent + [0] * 6]))
        assert torch.allclose(alone, padded, atol=1e-6)
    # embedded input: garbage in masked positions is ignored
    disc = TextCNN(None, emb_dim=8, widths=(3,), n_filters=5, n_out=1).eval()
    h = torch.randn(1, 4, 8)
    noisy = torch.cat([h, 100 * torch.randn(1, 3, 8)], 1)
    mask = torch.tensor([[True] * 4 + [False] * 3])
    assert torch.allclose(disc(h), disc(noisy, mask), atol=1e-5)


def test_lstm_classifier_shape_and_padding():
    torch.manual_seed(0)
    m = LSTMClassifier(30, emb_dim=8, hidden_dim=8).eval()
    out = m(torch.tensor([[3, 4, 5, 0, 0], [6, 7, 8, 9, 10]]))
    assert out.shape == (2,)
    assert torch.allclose(m(torch.tensor([[3, 4, 5]])), out[:1], atol=1e-6)


@pytest.mark.parametrize("kw", [{}, {"softmax": "adaptive", "cutoffs": [6, 12]}])
def test_gru_lm_forward_soft_equals_forward_on_one_hot(kw):
    torch.manual_seed(0)
    lm = GRULanguageModel(20, emb_dim=8, hidden_dim=16, n_layers=2, **kw).eval()
    ids = torch.tensor([[2, 5, 6, 7], [2, 9, 3, 0]])
    logits = lm(ids)
    assert logits.shape == (2, 4, 20)
    one_hot = torch.nn.functional.one_hot(ids, 20).float().requires_grad_()
    soft = lm.forward_soft(one_hot)
    assert torch.allclose(logits, soft, atol=1e-5)
    soft.sum().backward()  # gradients reach the input distributions (LM loss, eq. 6)
    assert one_hot.grad is not None and one_hot.grad.abs().sum() > 0
