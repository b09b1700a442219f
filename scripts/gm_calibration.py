"""Rule gm_calibration: the default GM's thresholds from the sanity baselines' score files (tst.metrics.gm
.calibrate) -> validity/gm_thresholds.json."""

from tst.io import read_json, write_json
from tst.logs import log_to
from tst.metrics.gm import calibrate

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    scores = {name: read_json(path)["metrics"] for name, path in zip(sm.params.systems, sm.input.scores)}
    write_json(sm.output.thresholds, calibrate(scores))
