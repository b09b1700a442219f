"""Rule report_plots: the plots of one dataset from its score files (tst.report.build.PLOTS, as png and svg);
a panel whose metrics no score file has is drawn with the reason on it."""

from pathlib import Path

from tst.io import read_json
from tst.logs import log_to
from tst.report.build import build_plots

sm = snakemake  # noqa: F821 (set by Snakemake)
calibration = sm.input.get("calibration")
with log_to(sm.log[0]):
    build_plots(
        sm.input.scores,
        Path(sm.output[0]).parent,
        sm.params.settings,
        sm.params.variants,
        gm_t=sm.params.gm_t,
        calibration=read_json(calibration) if calibration else None,
    )
