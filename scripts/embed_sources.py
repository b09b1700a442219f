"""Rule embed_sources: the sentence embeddings (tst.metrics.sbert, all-MiniLM-L6-v2) of one split's word-level
text, both styles, each distinct line once; the score and validity jobs preload them."""

import logging

import torch

from tst.io import read_sentences
from tst.logs import log_to
from tst.metrics.sbert import save_embeddings, scoring_bf16

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    torch.set_num_threads(sm.threads)
    sentences = [s for p in sm.input for s in read_sentences(p)]
    bf16 = scoring_bf16({"precision": sm.params.precision})  # as the score jobs that preload them
    n = save_embeddings(sentences, sm.output.vectors, sm.output.texts, bf16=bf16)
    logging.getLogger("embed_sources").info(
        "embedded %d distinct sentences of %s (%s)", n, list(sm.input), "bf16" if bf16 else "fp32"
    )
