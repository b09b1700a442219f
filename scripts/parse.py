"""Rule parse: tag and dependency-parse a tokenized text once (no NER) -> JSON lines, one record per line
(empty lines give empty records; see tst.nlp.attributes.doc_to_record)."""

import json
import logging
import time
from pathlib import Path

from tst.io import read_sentences
from tst.logs import log_to
from tst.nlp.attributes import parse_records
from tst.nlp.backend import backend_from_config

CHUNK = 20000  # sentences held in memory at once

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    sentences = read_sentences(sm.input[0])
    backend = backend_from_config(sm.params.nlp)
    out = Path(sm.output[0])
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(out, "w", encoding="utf-8") as f:
        for start in range(0, len(sentences), CHUNK):
            records = parse_records(backend, sentences[start : start + CHUNK])
            f.writelines(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records)
    dt = time.perf_counter() - t0
    logging.getLogger("parse").info("parsed %d sentences in %.1f s", len(sentences), dt)
