"""bench/gpu_share.py through bench/gpu_check.py on a CPU: concurrent trainings of the demo-size model, 1 and
2 at once; every training takes the steps asked for, the rates are the updates over the time, and the rates'
JSON is what tst cost reads."""

import json
import subprocess
import sys

import pytest
from conftest import REPO


@pytest.mark.slow
def test_concurrent_trainings_count_every_step_they_were_asked_for(tmp_path):
    rates = tmp_path / "rates.json"
    args = ["--device", "cpu", "--dims", "demo", "--only-concurrency", "--concurrency", "1", "2"]
    args += ["--concurrent-steps", "2", "--variants", "M0", "--threads", "1", "--rates", str(rates)]
    out = subprocess.run(
        [sys.executable, str(REPO / "bench" / "gpu_check.py"), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(rates.read_text())
    assert got["device"]["device"] == "cpu" and got["mps"] == "off" and got["threads_per_training"] == 1
    rows = got["rows"]
    assert [(r["variant"], r["jobs"], r["mps"]) for r in rows] == [("M0", 1, False), ("M0", 2, False)]
    for r in rows:
        assert "error" not in r
        assert r["updates"] == r["jobs"] * 2  # each training counts its own steps
        assert len(r["per_training_updates_per_s"]) == r["jobs"]
        assert r["updates_per_s"] == pytest.approx(r["updates"] / r["seconds"], rel=2e-3)
        # the span covers every training's own time: their rates add up to at least the aggregate
        assert sum(r["per_training_updates_per_s"]) >= r["updates_per_s"] * 0.999
        assert r["settings"]["lambda_cyc"] == 0 and r["settings"]["model"] == "cross_aligned"
    assert "| M0 | off | 2 |" in out.stdout and "| variant | MPS | trainings |" in out.stdout
