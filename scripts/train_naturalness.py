"""Rule train_naturalness: Mir et al.'s (2019) adversarial naturalness classifier for one system: human text
of the target style vs the system's outputs (kind lr: unigram logistic regression; nn: CNN). Output files
are aligned with sources of style s, so their target style is 1 - s. Outputs that are also the ones scored
(external systems publish only test outputs) are cross-fitted: each output is judged by the classifier
trained on the other fold."""

import json
import logging

import numpy as np
import torch

from tst.evaluators.naturalness import (
    cross_fit_folds,
    save_naturalness,
    train_naturalness_cnn,
    train_naturalness_lr,
)
from tst.io import read_lines, read_sentences
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
log = logging.getLogger("train_naturalness")


def outputs_of(path):
    """Plain tokenized lines, or Li et al.'s `source<TAB>output<TAB>label` lines."""
    return [(line.split("\t")[1] if "\t" in line else line).split() for line in read_lines(path)]


def train(kind, human, generated, cfg, seed):
    dev_fraction = cfg.get("dev_fraction", 0.1)
    if kind == "lr":
        model = train_naturalness_lr(human, generated, C=cfg.get("C", 1.0), dev_fraction=dev_fraction, seed=seed,
                                     min_count=cfg.get("min_count", 1))
        return model, model.metrics
    model_keys = ("emb_dim", "widths", "n_filters", "dropout")
    model = train_naturalness_cnn(human, generated, {k: v for k, v in cfg.items() if k in model_keys},
                                  {k: v for k, v in cfg.items() if k not in model_keys
                                   and k not in ("dev_fraction", "max_human", "min_count")},
                                  dev_fraction, cfg.get("min_count", 1), log=log.info)
    return model, {k: v for k, v in model["metrics"].items() if k != "epochs"}


with log_to(sm.log[0]):
    torch.set_num_threads(sm.threads)
    kind, cfg, out = sm.wildcards.kind, sm.params.settings, sm.output[0]
    seed = cfg.get("seed", 1)
    rng = np.random.default_rng(seed)
    human, generated = [], []
    for src_style in (0, 1):
        outs = outputs_of(sm.input.outputs[src_style])
        generated += outs
        pool = read_sentences(sm.input.human[1 - src_style])  # human text of the target style
        n = min(len(pool), max(len(outs), cfg.get("max_human") or len(outs)))
        human += [pool[i] for i in sorted(rng.choice(len(pool), n, replace=False))]
    if sm.params.cross_fit:  # the scored outputs themselves: each fold judges the others' lines
        folds = cross_fit_folds(generated)
        trained = [train(kind, human, fold, cfg, seed) for fold in folds]
        save_naturalness([m for m, _ in trained], out, seen=[[" ".join(s) for s in fold] for fold in folds])
        log.info(json.dumps({"folds": [m for _, m in trained]}))
    else:
        model, metrics = train(kind, human, generated, cfg, seed)
        save_naturalness(model, out)
        log.info(json.dumps(metrics))
