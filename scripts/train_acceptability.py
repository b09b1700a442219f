"""Rule train_acceptability: a classifier of real training sentences vs corrupted copies of them (fluency;
tst.evaluators.acceptability) -> its checkpoint dict."""

import json
import logging
from pathlib import Path

import torch

from tst.baselines import shuffled
from tst.data.splits import sample_train
from tst.evaluators.acceptability import (
    SHUFFLED_MAX,
    acceptability_from_checkpoint,
    acceptability_settings,
    shuffled_floor,
    train_acceptability,
    training_sentences,
)
from tst.evaluators.language_model import load_lm
from tst.io import read_sentences
from tst.logs import log_to
from tst.vocab import Vocab

sm = snakemake  # noqa: F821 (set by Snakemake)
log = logging.getLogger("train_acceptability")

with log_to(sm.log[0]):
    torch.set_num_threads(sm.threads)
    s = acceptability_settings(sm.params.settings)
    train = training_sentences(
        [read_sentences(p) for p in sm.input.train], s["max_train"], s["corruption"]["seed"]
    )
    dev = [x for p in sm.input.dev for x in read_sentences(p)]
    # minilm reads words through its own tokenizer: no vocabulary
    vocab = Vocab.load(sm.input.vocab, s["min_count"], s["max_vocab"]) if sm.input.get("vocab") else None
    lm = (
        load_lm(sm.input.lm, torch.device("cpu")) if sm.input.get("lm") else None
    )  # continues lm_share of them
    ckpt = train_acceptability(
        train,
        dev,
        vocab,
        s["kind"],
        s["model"],
        s["train"],
        s["corruption"],
        s["strip_final"],
        lm,
        log=log.info,
    )
    ckpt["acceptability"]["max_train"] = s["max_train"]  # per style; None = every training sentence
    # the default GM's fluency floor: P(real) that the dev sentences with their words shuffled reach
    salad = shuffled(sample_train([" ".join(x) for x in dev if x], SHUFFLED_MAX, 0), 0, 0)
    ckpt["acceptability"]["shuffled_floor"] = shuffled_floor(acceptability_from_checkpoint(ckpt), salad)
    log.info(f"shuffled floor: {ckpt['acceptability']['shuffled_floor']}")
    Path(sm.output[0]).parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, sm.output[0])
    log.info(json.dumps({**ckpt["acceptability"], "dev_accuracy": ckpt["metrics"]["dev_accuracy"]}))
