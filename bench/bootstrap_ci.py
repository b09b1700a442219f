"""Time the paired bootstrap of `tst score --ci` (tst.scoring.run.add_intervals) on one system's scored test set.

    python bench/bootstrap_ci.py --dataset-dir results/demo [--system nearest_target] [--resamples 1000]

Scores the system's test outputs (results/<dataset>/systems/<system>/test.final.{0,1}.txt against their
test.final.sources.{0,1}.txt, the dataset's references) once with every metric whose evaluator exists, then
times add_intervals (every metric resampled, PP and corpus BLEU recomputed from sufficient statistics, GM from
the resampled factors) --repeat times; prints the sentences, metrics with an interval, and the seconds.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tst.bootstrap import DEFAULTS
from tst.io import read_json, read_lines
from tst.layout import CALIBRATION_FILE
from tst.metrics.bleu import read_references
from tst.metrics.gm import DEFAULT_T
from tst.metrics.registry import add_derived
from tst.scoring.compute import score_system
from tst.scoring.evaluator_files import Evaluators
from tst.scoring.run import add_intervals
from tst.scoring.write import score_json


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset-dir", required=True)
    p.add_argument("--system", default="nearest_target")
    p.add_argument("--resamples", type=int, default=DEFAULTS["n_resamples"])
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    d = Path(a.dataset_dir)
    sys_dir = d / "systems" / a.system
    sources, outputs, styles = [], [], []
    for s in (0, 1):
        src = read_lines(sys_dir / f"test.final.sources.{s}.txt")
        sources += src
        outputs += read_lines(sys_dir / f"test.final.{s}.txt")
        styles += [s] * len(src)
    refs = read_references(sorted((d / "data").glob("references.*.tsv")), sources)
    t0 = time.perf_counter()
    scores = score_system(sources, outputs, styles, Evaluators(d / "evaluators"), refs, system=a.system)
    t_score = time.perf_counter() - t0
    cal = read_json(d / CALIBRATION_FILE) if (d / CALIBRATION_FILE).is_file() else None
    obj = score_json(scores, {}, len(outputs))
    obj["metrics"] = dict(add_derived(obj["metrics"], DEFAULT_T, cal))
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        add_intervals(obj, scores, {"n_resamples": a.resamples}, DEFAULT_T, cal)
        times.append(time.perf_counter() - t0)
    with_ci = sum(1 for m in obj["metrics"].values() if "ci95" in m)
    print(
        f"{a.system}: {len(outputs)} sentences, {with_ci} of {len(obj['metrics'])} metrics with ci95, "
        f"{a.resamples} resamples; scoring {t_score:.1f} s; add_intervals "
        + ", ".join(f"{t:.3f}" for t in times)
        + " s"
    )


if __name__ == "__main__":
    main()
