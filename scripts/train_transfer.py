"""Rule train_transfer: one transfer model (a variant of Pang & Gimpel's Table 2, or Fu et al.'s) for one seed.
A rerun after a kill resumes from the last checkpoint of the same settings, data and vocabulary."""

from pathlib import Path

from tst.logs import log_to
from tst.train.trainer import train_files

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    train_files(
        sm.params.settings,
        sm.params.variant,
        int(sm.wildcards.seed),
        Path(sm.output.last).parent.parent,
        sm.input.train,
        sm.input.dev,
        sm.input.vocab,
        sm.params.min_count,
        paraphrase=sm.input.get("paraphrase"),
        lm=sm.input.get("lm"),
        attributes=sm.input.get("attributes"),
        dev_entities=sm.input.dev_entities,
        threads=sm.threads,
        paraphrase_source=sm.params.paraphrase_source,
    )
