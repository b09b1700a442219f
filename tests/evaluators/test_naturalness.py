"""Adversarial naturalness classifiers (Mir et al. 2019): learn human vs system text, load back safely."""

import math

import numpy as np
import pytest
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


@pytest.mark.parametrize(
    "arch,model_cfg,description",
    [
        ("lstm", {"emb_dim": 8, "hidden_dim": 8}, "LSTM classifier"),  # Mir et al.'s neural classifier
        ("cnn", {"emb_dim": 8, "n_filters": 4, "dropout": 0.5}, "Kim CNN classifier"),
    ],
)
def test_nn_naturalness_learns_and_round_trips(tmp_path, arch, model_cfg, description):
    torch.set_num_threads(1)
    human, system = corpora()
    ckpt = train_naturalness_cnn(
        human,
        system,
        model_cfg,
        {"max_epochs": 10, "patience": 2, "lr": 0.01, "batch_size": 16, "device": "cpu"},
        log=lambda m: None,
        arch=arch,
    )
    assert ckpt["metrics"]["dev_accuracy"] >= 0.9  # "unk_unk" separates the classes; 20 dev sentences
    path = tmp_path / "sys.nn.pt"
    save_naturalness(ckpt, path)
    model = load_naturalness(path)
    p = model.prob_human([["the", "food", "unk_unk"], ["really", "nice", "place"]])
    assert p.shape == (2,) and p[0] < 0.5 < p[1]
    assert model.description == description


class _Constant:
    def __init__(self, p):
        self.p = p

    def prob_human(self, sentences):
        return np.full(len(sentences), self.p)


def test_cross_fit_scores_each_output_with_the_fold_that_did_not_see_it():
    from tst.evaluators.naturalness import CrossFitNaturalness, cross_fit_folds

    outputs = [["a"], ["b"], ["c"], ["d"]]
    folds = cross_fit_folds(outputs)
    assert folds == [[["a"], ["c"]], [["b"], ["d"]]]
    seen = [[" ".join(s) for s in fold] for fold in folds]
    model = CrossFitNaturalness([_Constant(0.2), _Constant(0.8)], seen)
    # a, c trained fold 0 -> judged by fold 1 (0.8); b, d by fold 0 (0.2); unseen text: mean of both
    np.testing.assert_allclose(model.prob_human([["a"], ["b"], ["c"], ["new"]]), [0.8, 0.2, 0.8, 0.5])


def test_cross_fit_lr_round_trip(tmp_path):
    from tst.evaluators.naturalness import (
        CrossFitNaturalness,
        cross_fit_folds,
        load_naturalness,
        save_naturalness,
        train_naturalness_lr,
    )

    human = [["the", "food", "was", "good", str(i)] for i in range(40)]
    generated = [["good", "good", "good", str(i)] for i in range(40)]
    folds = cross_fit_folds(generated)
    models = [train_naturalness_lr(human, fold, C=1.0, dev_fraction=0.0) for fold in folds]
    save_naturalness(models, tmp_path / "x.lr.json", seen=[[" ".join(s) for s in f] for f in folds])
    loaded = load_naturalness(tmp_path / "x.lr.json")
    assert isinstance(loaded, CrossFitNaturalness)
    direct = CrossFitNaturalness(models, [[" ".join(s) for s in f] for f in folds])
    np.testing.assert_allclose(loaded.prob_human(generated), direct.prob_human(generated))
    np.testing.assert_allclose(loaded.prob_human(generated[:1]), models[1].prob_human(generated[:1]))
    assert loaded.description == (
        "unigram logistic regression (binary word features, C = 1 (fixed in the config)), cross-fitted on 2 folds"
    )


def test_lr_C_chosen_by_cv_equals_sklearn_grid_search_on_the_same_folds(tmp_path):
    """choose_C against sklearn's GridSearchCV (accuracy, the same StratifiedKFold splits, grid ascending so a
    tie goes to the smaller C in both): the same C and the same mean accuracy per C. The chosen C is saved
    in the classifier file and named in the metric's variant string; a fixed C is labelled as such."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from tst.evaluators.naturalness import choose_C
    from tst.evaluators.style_lexicon import unigram_matrix
    from tst.metrics.naturalness import naturalness

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)]
    # label 1 sentences use "good" 70% of the time, label 0 30%; the rest is noise: a noisy problem, so the
    # grid's accuracies differ and regularisation matters
    sents, y = [], []
    for i in range(120):
        lab = i % 2
        s = list(rng.choice(words, 4))
        if rng.random() < (0.7 if lab else 0.3):
            s.append("good")
        sents.append(s)
        y.append(lab)
    vocab = sorted({t for s in sents for t in s})
    x, y = unigram_matrix(sents, vocab), np.asarray(y)
    grid = [0.01, 0.1, 1.0, 10.0, 100.0]
    c, cv = choose_C(x, y, grid, folds=5, seed=3)
    folds = StratifiedKFold(5, shuffle=True, random_state=3)
    gs = GridSearchCV(
        LogisticRegression(solver="liblinear", random_state=3, max_iter=1000),
        {"C": grid},
        cv=folds,
        scoring="accuracy",
    ).fit(x, y)
    assert c == gs.best_params_["C"] and len(set(cv.values())) > 1  # the grid is not flat here
    np.testing.assert_allclose([cv[f"{g:g}"] for g in grid], gs.cv_results_["mean_test_score"])

    human, system = corpora()
    model = train_naturalness_lr(human, system, C=None, C_grid=grid, cv_folds=5, seed=1)
    assert model.metrics["C"] in grid and "5-fold CV" in model.metrics["C_chosen_by"]
    save_naturalness(model, tmp_path / "s.lr.json")
    back = load_naturalness(tmp_path / "s.lr.json")
    assert read_json(tmp_path / "s.lr.json")["metrics"]["C"] == model.metrics["C"]
    variant = naturalness([["the", "food"]], back).variant
    assert f"C = {model.metrics['C']:g} (5-fold CV accuracy on [0.01, 0.1, 1, 10, 100])" in variant
    fixed = train_naturalness_lr(human, system, C=2.0, seed=1)
    assert "C = 2 (fixed in the config)" in naturalness([["the", "food"]], fixed).variant
    with pytest.raises(ValueError, match="C_grid"):
        train_naturalness_lr(human, system, C=None)


def test_the_lr_kind_trains_saves_and_loads_without_torch(tmp_path):
    """20 of a Yelp stage's naturalness jobs are the unigram LR, ~5 s each, of which torch's import was ~1.6 s:
    the LR path never imports it (a fresh interpreter trains, saves, loads and scores one). Nor pandas, which
    scikit-learn imports when it can (~0.45 s): C chosen by CV there gives the same model, bit for bit, as
    scikit-learn imported as usual (pandas loaded) in this process."""
    import json
    import subprocess
    import sys

    import pandas  # noqa: F401 (scikit-learn as usual here: it sees pandas)

    out = tmp_path / "m.json"
    h = [["the", "food", "was", "good"], ["good", "staff"], ["the", "place", "is", "nice"]] * 12
    g = [["food", "good", "good"], ["the", "the", "staff"], ["nice", "nice", "place"]] * 12
    code = (
        "import sys, json\n"
        "from tst.evaluators.naturalness import train_naturalness_lr, save_naturalness, load_naturalness\n"
        "h, g = json.loads(sys.argv[1])\n"
        "m = train_naturalness_lr(h, g, C_grid=[0.01, 1, 100], cv_folds=3)\n"
        f"save_naturalness(m, {str(out)!r})\n"
        f"p = load_naturalness({str(out)!r}).prob_human(h[:1] + g[:1])\n"
        "print(p[0] > 0.5 > p[1], 'torch' in sys.modules, 'pandas' in sys.modules)\n"
        "print(json.dumps(m.to_json()))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code, json.dumps([h, g])], capture_output=True, text=True, check=True
    )
    first, model = res.stdout.splitlines()
    assert first.split() == ["True", "False", "False"]
    usual = train_naturalness_lr(h, g, C_grid=[0.01, 1, 100], cv_folds=3)
    assert json.loads(model) == json.loads(json.dumps(usual.to_json()))
