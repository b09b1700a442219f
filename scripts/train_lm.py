"""Rule train_lm: a GRU language model (joint: both styles' text; style0 / style1: one style's) -> its
checkpoint dict."""

import json
import logging
from pathlib import Path

import torch

from tst.evaluators.content_mask import mask_content_words
from tst.evaluators.language_model import lm_settings, train_lm
from tst.io import read_json, read_sentences
from tst.logs import log_to
from tst.vocab import Vocab

sm = snakemake  # noqa: F821 (set by Snakemake)
log = logging.getLogger("train_lm")
with log_to(sm.log[0]):
    torch.set_num_threads(sm.threads)
    cfg = dict(sm.params.settings)
    train = [s for p in sm.input.train for s in read_sentences(p)]
    dev = [s for p in sm.input.dev for s in read_sentences(p)]
    words = read_json(sm.input.content)["words"] if sm.input.get("content") else None
    if words:
        train, dev = mask_content_words(train, words), mask_content_words(dev, words)
    vocab = Vocab.load(sm.input.vocab, cfg["min_count"], cfg.get("max_vocab"))
    init = torch.load(sm.input.init, map_location="cpu", weights_only=True) if sm.input.get("init") else None
    if init is not None:
        init["name"] = Path(sm.input.init).name  # recorded in the checkpoint: "init": "lm_joint.pt"
    model_cfg, train_cfg = lm_settings(cfg, init is not None)
    ckpt = train_lm(train, dev, vocab, model_cfg, train_cfg, log=log.info, init=init)
    if words:  # the loaded evaluator masks the same words before scoring
        ckpt["content_words"] = sorted(set(words))
    Path(sm.output[0]).parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, sm.output[0])
    log.info(json.dumps({k: v for k, v in ckpt["metrics"].items() if k != "epochs"}))
