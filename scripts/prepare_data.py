"""Rule prepare_data: one dataset -> results/{dataset}/data/ (tst.data.corpus.prepare_corpus), all but the
references and report.json, which rule prepare_references writes from the corpus.json left here.
The released files are read where the config's data_dir / $TST_DATA_DIR says (their content is the rule's
input; their location is not a param, so a moved data folder with the same files reruns nothing)."""

import json
import logging
from pathlib import Path

from tst.data.corpus import prepare_corpus
from tst.data.sources import resolve_data_dir
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    corpus = prepare_corpus(
        sm.params.dataset,
        resolve_data_dir(sm.config.get("data_dir")),
        Path(sm.output[0]).parent,
        sm.params.nlp,
        sm.wildcards.dataset,
    )
    logging.getLogger("prepare_data").info(
        "prepared %s: %s", sm.wildcards.dataset, json.dumps(corpus["report"]["splits"])
    )
