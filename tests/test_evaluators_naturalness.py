"""Adversarial naturalness classifiers (Mir et al. 2019): learn human vs system text, load back safely."""

import math

import numpy as np
import torch

from tst.evaluators.naturalness import (
    load_naturalness,
    save_naturalness,
    split_data,
    train_naturalness_cnn,
    train_naturalness_lr,
)
from tst.io import read_json


def corpora(n=200, seed=0):
    """Human text uses fluent words; the 'system' repeats a degenerate token."""
    rng = np.random.default_rng(seed)
    shared = ["food", "place", "staff", "the", "was"]
    human = [[str(w) for w in rng.choice(shared + ["really", "nice"], 5)] for _ in range(n)]
    system = [[str(w) for w in rng.choice(shared, 4)] + ["unk_unk"] for _ in range(n // 2)]
    return human, system


def test_split_data_balances_and_holds_out():
    human, system = corpora()
    tr, tr_y, dv, dv_y = split_data(human, system, 0.1, seed=1)
    assert len(tr) + len(dv) == 200 and sum(tr_y) + sum(dv_y) == 100  # 100 system + 100 of 200 human
    assert len(dv) == 20 and sum(dv_y) == 10


def test_lr_naturalness_learns_and_round_trips(tmp_path):
    human, system = corpora()
    model = train_naturalness_lr(human, system, C=1.0, seed=1)
    assert model.metrics["dev_accuracy"] == 1.0
    path = tmp_path / "sys.lr.json"
    save_naturalness(model, path)
    back = load_naturalness(path)
    p = back.prob_human([["the", "food", "unk_unk"], ["really", "nice", "place"]])
    assert p[0] < 0.5 < p[1]
    # P(human) by hand from the saved weights: sigmoid(b + sum of the distinct words' weights)
    d = read_json(path)
    w = dict(zip(d["vocab"], d["coef"]))
    z = d["intercept"] + w["really"] + w["nice"] + w["place"]
    assert abs(p[1] - 1 / (1 + math.exp(-z))) < 1e-12


def test_cnn_naturalness_learns_and_round_trips(tmp_path):
    torch.set_num_threads(1)
    human, system = corpora()
    ckpt = train_naturalness_cnn(human, system, {"emb_dim": 8, "n_filters": 4},
                                 {"max_epochs": 10, "patience": 2, "lr": 0.01, "batch_size": 16, "device": "cpu"},
                                 log=lambda m: None)
    assert ckpt["metrics"]["dev_accuracy"] == 1.0
    path = tmp_path / "sys.cnn.pt"
    save_naturalness(ckpt, path)
    p = load_naturalness(path).prob_human([["the", "food", "unk_unk"], ["really", "nice", "place"]])
    assert p.shape == (2,) and p[0] < 0.5 < p[1]
