"""Rule report_tables: the tables of one dataset from its score files (tst.report.build.TABLES, as csv, md,
tex and html); GM is derived from the stored corpus scores with the config's score.gm_t; the leaderboard
resamples the per-sentence TSVs (input.tsvs, beside the JSONs) with the config's score.bootstrap; the word-order
table's undamaged rows are the validity systems' score files (input.originals). Also warnings.md: what the
numbers warn of (tst.run_warnings: Pang & Gimpel's GM 0 everywhere, a weak style classifier, an acceptability
classifier that rejects one style's own sentences)."""

from pathlib import Path

from tst.io import read_json
from tst.logs import log_to
from tst.report.build import build_tables
from tst.run_warnings import dataset_warnings, write_warnings

sm = snakemake  # noqa: F821 (set by Snakemake)
calibration = sm.input.get("calibration")
with log_to(sm.log[0]):
    build_tables(
        sm.input.scores,
        Path(sm.output[1]).parent,
        sm.params.settings,
        sm.params.variants,
        sm.input.get("correlations"),
        sm.input.get("aggregate"),
        gm_t=sm.params.gm_t,
        warmups=sm.params.warmups,
        calibration=read_json(calibration) if calibration else None,
        checks=read_json(sm.input.checks),
        originals=sm.input.get("originals") or [],
        honest=sm.params.honest,
        rated=sm.input.get("rated"),
        bootstrap=sm.params.bootstrap,
    )
    source_tsv = [p for p in sm.input.tsvs if Path(p).parent.name == "source"]
    write_warnings(
        sm.output[0],
        sm.wildcards.dataset,
        dataset_warnings(
            sm.input.scores,
            sm.params.gm_t,
            {Path(p).stem.removeprefix("style_"): p for p in sm.input.classifiers},
            source_tsv[0] if source_tsv else None,
            sm.params.styles,
        ),
    )
