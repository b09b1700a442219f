"""Rule train_naturalness: Mir et al.'s (2019) adversarial naturalness classifier for one system: the
system's inputs (human-written, label 1) vs its outputs on them (label 0), as in Mir's code (kind lr:
unigram logistic regression; nn: LSTM, or a Kim CNN with `arch: cnn`). Outputs that are also the ones
scored (external systems publish only test outputs) are cross-fitted: each output and its input are judged
by the classifier trained on the other fold."""

import json
import logging

from tst.evaluators.naturalness import (
    cross_fit_folds,
    save_naturalness,
    train_naturalness_cnn,
    train_naturalness_lr,
)
from tst.io import read_lines
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
log = logging.getLogger("train_naturalness")


def outputs_of(path):
    """Plain tokenized lines, or Li et al.'s `source<TAB>output<TAB>label` lines."""
    return [(line.split("\t")[1] if "\t" in line else line).split() for line in read_lines(path)]


def inputs_of(path, n_outputs):
    lines = [line.split() for line in read_lines(path)]
    if len(lines) != n_outputs:
        raise ValueError(
            f"{path}: {len(lines)} input lines but {n_outputs} outputs; the inputs must be "
            f"aligned line by line with the system's outputs"
        )
    return lines


def train(kind, human, generated, cfg, seed):
    dev_fraction = cfg["dev_fraction"]  # the settings are resolved (tst.stages.naturalness_settings)
    if kind == "lr":
        model = train_naturalness_lr(
            human,
            generated,
            C=cfg.get("C"),
            dev_fraction=dev_fraction,
            seed=seed,
            **{k: cfg[k] for k in ("C_grid", "cv_folds", "min_count") if k in cfg},
        )
        return model, model.metrics
    model_keys = ("emb_dim", "hidden_dim", "widths", "n_filters", "dropout")
    model = train_naturalness_cnn(
        human,
        generated,
        {k: v for k, v in cfg.items() if k in model_keys},
        {k: v for k, v in cfg.items() if k not in model_keys and k not in ("dev_fraction", "min_count")},
        dev_fraction,
        cfg["min_count"],
        log=log.info,
    )
    return model, {k: v for k, v in model["metrics"].items() if k != "epochs"}


with log_to(sm.log[0]):
    kind, cfg, out = sm.wildcards.kind, sm.params.settings, sm.output[0]
    if kind != "lr":  # the unigram LR needs no torch (its import is ~1.6 s of a ~5 s job)
        import torch

        torch.set_num_threads(sm.threads)
    seed = cfg["seed"]
    human, generated = [], []  # the system's inputs and its outputs on them, both source styles
    for src_style in (0, 1):
        outs = outputs_of(sm.input.outputs[src_style])
        generated += outs
        human += inputs_of(sm.input.inputs[src_style], len(outs))
    if sm.params.cross_fit:  # the scored outputs themselves: each fold judges the others' lines
        folds, in_folds = cross_fit_folds(generated), cross_fit_folds(human)
        trained = [train(kind, h, g, cfg, seed) for h, g in zip(in_folds, folds)]
        seen = [[" ".join(s) for s in g + h] for h, g in zip(in_folds, folds)]
        save_naturalness([m for m, _ in trained], out, seen=seen)
        log.info(json.dumps({"folds": [m for _, m in trained]}))
    else:
        model, metrics = train(kind, human, generated, cfg, seed)
        save_naturalness(model, out)
        log.info(json.dumps(metrics))
