"""rules/report.smk end to end on score files written by the test: every table and plot, then the
HTML report (snakemake --report) with each of them as a captioned item."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_report_build import DEV_ACC, EPOCHS, EXTERNAL, ours_metrics, write_score

from tst.report import build

REPO = Path(__file__).resolve().parents[1]


def report_helpers():
    """The report group of rules/common.smk (its `# ---- report` header up to the next group or the end):
    the stub runs the workflow's own helpers, and common.smk itself needs the full config schema."""
    text = (REPO / "rules" / "common.smk").read_text()
    start = text.index("\n# ---- report")
    end = text.find("\n# ---- ", start + 1)
    return text[start:] if end == -1 else text[start:end]


SNAKEFILE = f"""
import json
import shlex

RESULTS = "results"
SCRIPTS = "{REPO}/scripts"


def dataset_config(d):
    return config["datasets"][d]


def dataset_systems(d):
    return list(config["datasets"][d].get("systems") or {{}})


def quoted(paths):
    return " ".join(shlex.quote(str(p)) for p in ([paths] if isinstance(paths, str) else paths))


{report_helpers()}


include: "{REPO}/rules/report.smk"


rule all:
    input:
        report_targets("toy"),


onstart:
    assert report_checkpoints() == ["ep0.5", "ep1.0", "ep1.5", "ep2.0"]
    assert report_targets("bare") == []
"""

CONFIG = {"transfer": {"variants": {"M0": {}, "M2": {}}, "run_variants": ["M0", "M2"], "seeds": [1, 2], "epochs": 2, "datasets": ["toy"]},
          "datasets": {"toy": {"systems": {s: {} for s in EXTERNAL}, "human_ratings": True}, "bare": {}},
          "report": {"target_acc": 0.8, "tolerance": 0.02, "pp_bins": [40, 43, 46, 49]}}


@pytest.mark.slow
def test_report_rules(tmp_path):
    scores = tmp_path / "results" / "toy" / "scores"
    for (v, seed), accs in DEV_ACC.items():
        for ep, a in zip(EPOCHS, accs):
            for split in ("dev", "test"):
                write_score(scores, f"{v}.seed{seed}", split, f"ep{ep}", ours_metrics(a, split), v, seed, ep)
    for system, m in EXTERNAL.items():
        write_score(scores, system, "test", "final", m)
    human = tmp_path / "results" / "toy" / "human"
    human.mkdir()
    (human / "correlation.csv").write_text("metric,aspect,level,n,spearman\nsim,topic,sentence,150,0.79\n")
    (human / "aggregate.json").write_text(json.dumps({"default_t": {"t": [63, 71, 97, -37], "agreement": 0.86}}))
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    (tmp_path / "scripts").symlink_to(REPO / "scripts")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    smk = [sys.executable, "-m", "snakemake", "--cores", "1", "--configfile", "config.json"]
    run = subprocess.run(smk, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                         check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    toy = tmp_path / "results" / "toy"
    for name in build.TABLES:
        for ext in ("csv", "md", "tex"):
            assert (toy / "tables" / f"{name}.{ext}").stat().st_size > 0
    for name in build.PLOTS:
        assert (toy / "plots" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the settings travelled through the rule: target 0.8 +- 0.02 selects M0 seed1 ep1.5, seed2 ep1.0
    assert "ep1.5 (0.790), ep1.0 (0.780)" in (toy / "tables" / "pang_gimpel.csv").read_text()
    assert "0.860" in (toy / "tables" / "aggregation.csv").read_text()

    run = subprocess.run(smk + ["--report", "report.html"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    log = run.stdout + run.stderr
    for name in build.TABLES + build.PLOTS:
        assert f"Adding {name}." in log
    assert (tmp_path / "report.html").stat().st_size > 100_000
