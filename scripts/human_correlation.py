"""Rule human_correlation: sentence- and system-level correlation of every per-sentence metric with Li et
al.'s human ratings; also the ratings table joined with the metrics."""

from pathlib import Path

from tst.human.correlation import correlations, load_rated_metrics
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    scores = dict(zip(sm.params.systems, sm.input.scores))
    _, joined, _ = load_rated_metrics(sm.input.ratings, Path(sm.input.outputs[0]).parent, scores)
    correlations(joined).to_csv(sm.output.csv, index=False, float_format="%.6g")
    joined.to_csv(sm.output.joined, sep="\t", index=False)
