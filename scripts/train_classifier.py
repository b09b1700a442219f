"""Rule train_classifier: a style classifier (kind cnn: Kim's CNN for Acc; lstm: Fu et al.'s LSTM-sigmoid for
transfer strength; minilm: all-MiniLM-L6-v2 fine-tuned, the default GM's style factor) -> its checkpoint dict."""

import json
import logging
from pathlib import Path

import torch

from tst.data.sentence_labels import read_sst2, sample_by_label
from tst.data.splits import sample_train
from tst.evaluators.classifiers import KIND_ALIASES, MODEL_KEYS, PRETRAINED, train_classifier
from tst.evaluators.content_mask import mask_content_words
from tst.io import read_json, read_sentences
from tst.logs import log_to
from tst.nlp.vader import agreeing
from tst.vocab import Vocab

sm = snakemake  # noqa: F821 (set by Snakemake)
log = logging.getLogger("train_classifier")


def labelled(paths, max_n=None, seed=1, vader=False):
    """Sentences and labels of the style files; at most max_n per style (tst.data.splits.sample_train), drawn
    from the sentences VADER reads as their style's sentiment when `vader` (tst.nlp.vader.agreeing)."""
    sents, labels = [], []
    for style, path in enumerate(paths):
        pool = read_sentences(path)
        if vader:
            n = len(pool)
            pool = agreeing(pool, style)
            log.info(f"VADER labels: {len(pool)} of {n} sentences of style {style} read as its sentiment")
        s = sample_train(pool, max_n, seed + style)
        sents += s
        labels += [style] * len(s)
    return sents, labels


with log_to(sm.log[0]):
    torch.set_num_threads(sm.threads)
    cfg, kind = dict(sm.params.settings), KIND_ALIASES[sm.wildcards.kind]
    # a pretrained encoder learns from at most max_train sentences per style (null: all) and is early-stopped on
    # at most max_dev; it reads the words as they are (no content mask)
    pretrained = kind in PRETRAINED
    seed = int(cfg["seed"])  # the settings are resolved (tst.stages.evaluator_settings)
    # labels vader (minilm only): the training sentences whose own words carry their style's sentiment
    train, y = labelled(sm.input.train, cfg.pop("max_train", None), seed, cfg.get("labels") == "vader")
    dev, dev_y = labelled(sm.input.dev, cfg.pop("max_dev", None), seed)
    words = read_json(sm.input.content)["words"] if sm.input.get("content") and not pretrained else None
    if words:
        train, dev = mask_content_words(train, words), mask_content_words(dev, words)
    vocab = Vocab.load(sm.input.vocab, cfg["min_count"], cfg.get("max_vocab"))
    # SST-2's sentence-level labels (evaluators.minilm.sentence_labels: mixed | first; the input exists only then)
    how, n_sst = cfg.pop("sentence_labels", None), cfg.pop("max_sentence_labels", None)
    first = None
    if sm.input.get("sentence_labels"):
        sst = sample_by_label(*read_sst2(sm.input.sentence_labels), n_sst, seed)
        log.info(f"SST-2 sentence-level labels ({how}): {len(sst[0])} sentences")
        if how == "mixed":
            train, y = train + sst[0], y + sst[1]
        else:
            first = sst
        cfg["sentence_labels"] = how  # recorded in the checkpoint, named in the style score's variant
    ckpt = train_classifier(
        train,
        y,
        dev,
        dev_y,
        vocab,
        kind,
        {k: v for k, v in cfg.items() if k in MODEL_KEYS[kind]},
        {k: v for k, v in cfg.items() if k not in MODEL_KEYS[kind]},
        log=log.info,
        first=first,
    )
    if words:  # the loaded evaluator masks the same words before scoring
        ckpt["content_words"] = sorted(set(words))
    Path(sm.output[0]).parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, sm.output[0])
    log.info(json.dumps({k: v for k, v in ckpt["metrics"].items() if k != "epochs"}))
