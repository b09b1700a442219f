"""Rule attributes: Yu et al.'s (2021, §5.1) attribute-independent / -dependent word lists from a parse.
One JSON object per line, aligned with the parsed text:
{"independent": [stems], "dependent": [words], "independent_words": [words]}."""

import json
import logging

from tst.io import write_jsonl
from tst.logs import log_to
from tst.nlp.attributes import AttributeOptions, extract, load_parses

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    opts = AttributeOptions.from_config(sm.params.options)
    records = [extract(doc, opts) for doc in load_parses(sm.input[0])]
    write_jsonl(sm.output[0], records)
    n_ind = [len(r["independent"]) for r in records]
    n_dep = [len(r["dependent"]) for r in records]
    n = max(len(records), 1)
    logging.getLogger("attributes").info(
        json.dumps(
            {
                "sentences": len(records),
                "mean_independent": sum(n_ind) / n,
                "mean_dependent": sum(n_dep) / n,
                "empty_independent": n_ind.count(0),
                "empty_dependent": n_dep.count(0),
            }
        )
    )
