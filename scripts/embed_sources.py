"""Rule embed_sources: the sentence embeddings (tst.metrics.sbert, all-MiniLM-L6-v2) of one split's word-level
text, both styles, each distinct line once; the score and validity jobs preload them."""

import logging

import torch

from tst.io import read_sentences
from tst.logs import log_to
from tst.metrics.sbert import save_embeddings

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    torch.set_num_threads(sm.threads)
    n = save_embeddings([s for p in sm.input for s in read_sentences(p)], sm.output.vectors, sm.output.texts)
    logging.getLogger("embed_sources").info("embedded %d distinct sentences of %s", n, list(sm.input))
