"""Rule prepare_references: a dataset's references -> results/{dataset}/data/references.{style}.tsv and
report.json (tst.data.references.prepare_references), from the reference files and the corpus.json that rule
prepare_data left. The released files are read where the config's data_dir / $TST_DATA_DIR says."""

import logging
from pathlib import Path

from tst.data.references import prepare_references
from tst.data.sources import resolve_data_dir
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    report = prepare_references(
        sm.params.dataset,
        resolve_data_dir(sm.config.get("data_dir")),
        Path(sm.input.corpus).parent,
        sm.params.nlp,
        sm.wildcards.dataset,
    )
    logging.getLogger("prepare_references").info(
        "references of %s: %s lines per style, forms %s",
        sm.wildcards.dataset,
        report["references"],
        report.get("references_forms", {}),
    )
