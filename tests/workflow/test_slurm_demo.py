"""A run through SLURM (tests/slurm/demo.sh, which `make test-slurm` runs on the demo): a single-node cluster,
`snakemake --profile profiles/slurm` with no other flag, and the same scores and tables as a local run.
The suite runs it on the tiny config of the local run the workflow tests share (tests/conftest.py,
finished_run), so it adds one tiny run through SLURM instead of two demo runs; it needs a cluster, so it runs
only when asked: TST_SLURM_TEST=1."""

import os
import shutil
import subprocess

import pytest

SCRIPTS = ("cluster.sh", "demo.sh")


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_parse(repo_root, script):
    script_path = str(repo_root / "tests" / "slurm" / script)
    r = subprocess.run(["bash", "-n", script_path], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


@pytest.mark.slurm
def test_demo_through_slurm_equals_a_local_run(repo_root, tmp_path, request):
    if os.environ.get("TST_SLURM_TEST") != "1":
        pytest.skip(
            "a run through SLURM, on a cluster: set TST_SLURM_TEST=1 "
            "(make test-slurm runs tests/slurm/demo.sh)"
        )
    if shutil.which("sbatch") is None and os.geteuid() != 0:
        pytest.skip("sbatch not found and not root (apt-get install slurm-wlm munge): no SLURM to run on")
    finished_run = request.getfixturevalue("finished_run")  # after the skips: built only when it runs
    r = subprocess.run(
        [str(repo_root / "tests" / "slurm" / "demo.sh")],
        env={
            **os.environ,
            "TST_SLURM_WORK": str(tmp_path),
            "TST_SLURM_CONFIG": str(finished_run / "config.yaml"),
            "TST_LOCAL_RUN": str(finished_run),
        },
        capture_output=True,
        text=True,
        timeout=7200,
        check=False,
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert "results/demo/scores:" in r.stderr and "byte-identical" in r.stderr
