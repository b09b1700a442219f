"""Rule build_embeddings: GloVe restricted to the corpus vocabulary (glove), or word2vec trained on the train
text, plain (word2vec) or with the style-lexicon words masked as in Mir et al. 2019 (word2vec_masked)."""

import json
import logging

from tst.defaults import default
from tst.evaluators.embeddings import load_glove, train_word2vec
from tst.evaluators.style_lexicon import mask_style_words
from tst.io import read_json, read_sentences
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    kind, cfg = sm.wildcards.emb, sm.params.settings
    sents = [s for p in sm.input.train for s in read_sentences(p)]
    if kind == "glove":  # the words of every split, so dev and test words have vectors too
        words = {t for p in [*sm.input.train, *sm.input.extra] for s in read_sentences(p) for t in s}
        emb = load_glove(
            cfg.get("source"),
            vocab=words,
            member=cfg.get("member"),
            cache_dir=cfg.get("cache_dir", default("evaluators", "glove", "cache_dir")),
        )
    else:
        if kind == "word2vec_masked":
            lexicon = read_json(sm.input.lexicon)
            sents = [mask_style_words(s, lexicon) for s in sents]
        keys = ("dim", "window", "min_count", "epochs", "sg", "seed")
        emb = train_word2vec(sents, **{k: cfg[k] for k in keys if k in cfg})
    emb.save(sm.output[0])
    logging.getLogger("build_embeddings").info(json.dumps({"kind": kind, "words": len(emb), "dim": emb.dim}))
