"""Rule learn_aggregate: GM thresholds t, exponents alpha and a small MLP learned from human preferences
(Pang & Gimpel 2019 §3.3; Pang 2019 §4.1), with their agreement on training and held-out pairs."""

from pathlib import Path

from tst.human.aggregate import learn_aggregate
from tst.io import write_json
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    scores = dict(zip(sm.params.systems, sm.input.scores))
    write_json(
        sm.output[0],
        learn_aggregate(sm.input.ratings, Path(sm.input.outputs[0]).parent, scores, **sm.params.settings),
    )
