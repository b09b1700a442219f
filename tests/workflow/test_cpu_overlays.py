"""The CPU-sized experiment overlays plan what their comments say (dry runs on the released data)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import planned_jobs

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def dry_run(repo_root, shared_data, workdir, *configs):
    shutil.copy(repo_root / "config.yaml", workdir / "config.yaml")
    result = subprocess.run(
        [
            SNAKEMAKE,
            "-s",
            str(repo_root / "Snakefile"),
            "-n",
            "--cores",
            "2",
            "--configfile",
            *[str(repo_root / "configs" / c) for c in configs],
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "TST_DATA_DIR": str(shared_data)},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result.stdout


def test_yelp_cpu_trains_m0_m2_m6_times_three_seeds(repo_root, shared_data, tmp_path):
    out = dry_run(repo_root, shared_data, tmp_path, "yelp.yaml", "yelp_cpu.yaml")
    jobs = planned_jobs(out)
    # 3 variants x 3 seeds, one training, one test-transfer and one scoring job each
    assert jobs["train_transfer"] == jobs["transfer_test"] == jobs["score_ours"] == 9
    for variant in ("M0", "M2", "M6"):
        for seed in (1, 2, 3):
            assert f"results/yelp/models/{variant}/seed{seed}/checkpoints/ep2.0.pt" in out  # 2 epochs


def test_literature_cpu_trains_one_m0(repo_root, shared_data, tmp_path):
    out = dry_run(repo_root, shared_data, tmp_path, "literature.yaml", "literature_cpu.yaml")
    assert planned_jobs(out)["train_transfer"] == 1
    assert "results/literature/models/M0/seed1/checkpoints/ep2.0.pt" in out
    assert "results/literature/models/M2/" not in out
