"""GRU LM evaluator: closed-form perplexities of hand-set models, training, safe round trip."""

import math

import numpy as np
import torch

from tst.evaluators.language_model import LanguageModel, load_lm, train_lm
from tst.models.gru_lm import GRULanguageModel
from tst.vocab import Vocab


def hand_set_lm(vocab, bias):
    """Output layer weight 0 and a fixed bias: every position predicts softmax(bias), whatever the input."""
    m = GRULanguageModel(len(vocab), emb_dim=4, hidden_dim=5)
    with torch.no_grad():
        m.out.weight.zero_()
        m.out.bias.copy_(torch.tensor(bias, dtype=torch.float))
    return LanguageModel(m, vocab, device=torch.device("cpu"))


def test_uniform_lm_perplexity_is_vocabulary_size():
    vocab = Vocab(["a", "b", "c", "d", "e", "f"])  # 10 ids with the 4 specials
    lm = hand_set_lm(vocab, [0.0] * len(vocab))
    sents = [["a", "b"], ["c"], ["f", "e", "d", "a", "zzz"]]
    nll = lm.token_nll(sents)
    assert [len(x) for x in nll] == [3, 2, 6]  # tokens + final <eos>
    np.testing.assert_allclose(np.concatenate(nll), math.log(10), rtol=1e-6)
    assert abs(lm.perplexity(sents) - 10.0) < 1e-4


def test_token_nll_of_hand_set_lm():
    vocab = Vocab(["a", "b"])  # ids: <pad>0 <unk>1 <bos>2 <eos>3 a4 b5
    bias = [0.0, 0.0, 0.0, math.log(2), math.log(4), math.log(1)]  # p = [1, 1, 1, 2, 4, 1] / 10
    lm = hand_set_lm(vocab, bias)
    (nll,) = lm.token_nll([["a", "b", "q"]])  # q is unknown -> <unk>
    np.testing.assert_allclose(
        nll, [-math.log(0.4), -math.log(0.1), -math.log(0.1), -math.log(0.2)], rtol=1e-6
    )


def test_lm_learns_deterministic_corpus_and_round_trips(tmp_path):
    torch.set_num_threads(1)
    # two equally likely sentences: PP of the optimum = exp(log 2 / 4) (one binary choice per 4 tokens)
    train = [["x", "y", "z"], ["y", "x", "z"]] * 100
    vocab = Vocab.build(train)
    ckpt = train_lm(
        train,
        train[:2],
        vocab,
        {"emb_dim": 16, "hidden_dim": 32, "dropout": 0.0},
        {"max_epochs": 30, "patience": 30, "lr": 0.01, "batch_size": 20, "device": "cpu"},
        log=lambda m: None,
    )
    optimum = math.exp(math.log(2) / 4)
    assert optimum - 1e-3 < ckpt["metrics"]["dev_perplexity"] < optimum + 0.02
    path = tmp_path / "lm.pt"
    torch.save(ckpt, path)
    lm = load_lm(path)
    assert isinstance(lm.model, GRULanguageModel) and lm.vocab.itos == vocab.itos
    assert abs(lm.perplexity(train[:2]) - ckpt["metrics"]["dev_perplexity"]) < 1e-6
