"""tst.evaluators.training.fit: dev evaluations inside an epoch, patience counted in evaluations."""

import pytest
import torch

from tst.evaluators.training import FIT_KEYS, fit
from tst.names import checkpoint_steps

# fit reads every FIT_KEYS key (the caller resolves them: tst.defaults.evaluator_defaults); these tests name what
# they are about over this base
BASE = {
    "precision": "fp32",
    "seed": 1,
    "lr": 1e-3,
    "lr_schedule": "constant",
    "batch_size": 64,
    "max_epochs": 10,
    "evals_per_epoch": 1,
    "patience": 2,
    "clip": None,
}


def test_eval_points():
    """fit evaluates after the batches checkpoint_steps names, labelled with its exact fractions."""
    assert set(checkpoint_steps(625, 1)) == {625}
    assert set(checkpoint_steps(625, 2)) == {313, 625}  # ceil(625 / 2)
    assert set(checkpoint_steps(3, 3)) == {1, 2, 3}
    assert set(checkpoint_steps(1, 2)) == {1}  # fewer batches than evaluations: one evaluation at the end
    assert checkpoint_steps(625, 2)[313] == 0.5  # epoch 0.5, not 313 / 625 = 0.501


def test_fit_evaluates_every_half_epoch_and_keeps_the_best_weights():
    """4 one-sentence batches per epoch, 2 evaluations per epoch: after batches 2 and 4. The model is one
    weight w that each step (SGD-like Adam on loss = w) moves; the scripted dev scores are 5, 4, 6, 7 (lower
    is better): the best is the 2nd evaluation (epoch 1.0), patience 2 stops at the 4th (epoch 2.0)."""
    torch.manual_seed(0)
    model = torch.nn.Linear(1, 1, bias=False)
    scores, seen = iter([5.0, 4.0, 6.0, 7.0, 1.0]), []

    def evaluate(m):
        seen.append(float(m.weight))
        return next(scores)

    logs = []
    hist = fit(
        model,
        [3, 3, 3, 3],
        lambda m, idx, dev: m.weight.sum(),
        evaluate,
        {**BASE, "evals_per_epoch": 2, "patience": 2, "max_epochs": 5, "batch_size": 1, "lr": 0.1},
        False,
        logs.append,
    )
    assert [h["epoch"] for h in hist["epochs"]] == [0.5, 1.0, 1.5, 2.0]
    assert hist["best_dev"] == 4.0 and hist["stopped"] == "patience 2 at epoch 2.0"
    assert float(model.weight) == seen[1]  # the weights of the best evaluation, not the last
    assert len(set(seen)) == 4  # each evaluation saw other weights (2 steps apart)
    assert logs[0].startswith("epoch 0.5: ")


def test_fit_with_one_evaluation_per_epoch_runs_to_max_epochs():
    model = torch.nn.Linear(1, 1, bias=False)
    scores = iter([3.0, 2.0, 1.0])
    hist = fit(
        model,
        [1, 1],
        lambda m, idx, dev: m.weight.sum(),
        lambda m: next(scores),
        {**BASE, "max_epochs": 3, "patience": 1, "batch_size": 1},
        False,
        lambda s: None,
    )
    assert [h["epoch"] for h in hist["epochs"]] == [1, 2, 3]
    assert hist["stopped"] == "max_epochs 3" and hist["best_dev"] == 1.0


def test_linear_lr_schedule_moves_adam_by_the_decayed_rates():
    """loss = w has a constant gradient 1, so each Adam step moves w by its learning rate (m-hat = 1, v-hat = 1:
    lr x 1 / (1 + 1e-8)). 2 epochs of 2 one-sentence batches at lr 0.1: constant moves 4 x 0.1 = 0.4; linear
    (step s of 4 at 0.1 (1 - s / 4)) moves 0.1 + 0.075 + 0.05 + 0.025 = 0.25. The dev score is w itself, which
    falls at every evaluation, so the last weights are the best and nothing stops early."""
    moved = {}
    for kind in ("constant", "linear"):
        model = torch.nn.Linear(1, 1, bias=False)
        with torch.no_grad():
            model.weight.fill_(1.0)
        fit(
            model,
            [2, 2],
            lambda m, idx, dev: m.weight.sum(),
            lambda m: float(m.weight),
            {**BASE, "max_epochs": 2, "batch_size": 1, "lr": 0.1, "lr_schedule": kind},
            False,
            lambda s: None,
        )
        moved[kind] = 1.0 - float(model.weight)
    assert abs(moved["constant"] - 0.4) < 1e-6
    assert abs(moved["linear"] - 0.25) < 1e-6


def test_an_unknown_lr_schedule_is_named():
    model = torch.nn.Linear(1, 1, bias=False)
    with pytest.raises(ValueError, match="lr_schedule: 'cosine' is not one of constant, linear"):
        fit(
            model,
            [1],
            lambda m, i, d: m.weight.sum(),
            lambda m: 0.0,
            {**BASE, "lr_schedule": "cosine"},
            False,
        )


def test_a_fractional_max_epochs_ends_at_its_evaluation():
    """max_epochs 0.5 with 2 evaluations per epoch: of an epoch's 4 one-sentence batches, the first 2 are trained
    (Adam on loss = w moves w by lr = 0.1 each: 1.0 -> 0.8), one evaluation at epoch 0.5, then training ends."""
    model = torch.nn.Linear(1, 1, bias=False)
    with torch.no_grad():
        model.weight.fill_(1.0)
    hist = fit(
        model,
        [2, 2, 2, 2],
        lambda m, idx, dev: m.weight.sum(),
        lambda m: float(m.weight),
        {**BASE, "max_epochs": 0.5, "evals_per_epoch": 2, "batch_size": 1, "lr": 0.1},
        False,
        lambda s: None,
    )
    assert [h["epoch"] for h in hist["epochs"]] == [0.5]
    assert hist["stopped"] == "max_epochs 0.5"
    assert abs(float(model.weight) - 0.8) < 1e-6


def test_max_epochs_must_end_at_an_evaluation():
    model = torch.nn.Linear(1, 1, bias=False)
    with pytest.raises(ValueError, match=r"max_epochs 0.5 does not end at a dev evaluation \(1 per epoch\)"):
        fit(model, [1], lambda m, i, d: m.weight.sum(), lambda m: 0.0, {**BASE, "max_epochs": 0.5}, False)


def test_fit_names_the_settings_it_was_not_given():
    """A call that leaves a training setting out is stopped before training, with the keys it lacks: fit never
    falls back on a value of its own (a library call resolves them from config.yaml)."""
    assert set(BASE) == set(FIT_KEYS)
    model = torch.nn.Linear(1, 1, bias=False)
    given = {k: v for k, v in BASE.items() if k not in ("evals_per_epoch", "clip")}
    with pytest.raises(KeyError, match="evals_per_epoch.*clip|clip.*evals_per_epoch"):
        fit(model, [1], lambda m, i, d: m.weight.sum(), lambda m: 0.0, given, False)
