"""Rule build_idf: idf over the training text of both styles (each sentence a document)."""

from tst.evaluators.idf import compute_idf
from tst.io import read_sentences, write_json
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    write_json(sm.output[0], compute_idf([s for p in sm.input for s in read_sentences(p)]))
