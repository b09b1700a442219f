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


def test_yelp_trajectories_trains_m0_m2_and_warmed_up_m2_with_8_checkpoints_per_epoch(
    repo_root, shared_data, tmp_path
):
    out = dry_run(repo_root, shared_data, tmp_path, "yelp.yaml", "yelp_cpu.yaml", "yelp_trajectories.yaml")
    jobs = planned_jobs(out)
    # 3 variants x 2 seeds
    assert jobs["train_transfer"] == jobs["transfer_test"] == jobs["score_ours"] == 6
    m2w = "results/yelp/models/M2w/seed2"
    # 3 epochs x 8 checkpoints: ep0.125 ... ep3.0, each with dev transfers of both styles
    assert f"{m2w}/checkpoints/ep3.0.pt" in out and f"{m2w}/transfers/dev.ep0.125.1.txt" in out
    assert f"{m2w}/transfers/dev.ep2.875.0.txt" in out and "seed3" not in out
    # the warm-up is M2w's own: its settings (params) say 0.25 / 0.25, M2's say 0 / 0 (the overlay's section)
    import yaml

    from tst import stages

    cfg = {}
    for name in ("yelp.yaml", "yelp_cpu.yaml", "yelp_trajectories.yaml"):
        overlay = yaml.safe_load((repo_root / "configs" / name).read_text())
        cfg["transfer"] = {**cfg.get("transfer", {}), **overlay.get("transfer", {})}
    tr = cfg["transfer"]
    assert stages.transfer_settings(cfg, tr["variants"]["M2w"])["cyc_start"] == 0.25
    assert stages.transfer_settings(cfg, {"lambda_cyc": 5})["cyc_start"] == 0
