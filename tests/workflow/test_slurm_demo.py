"""A run through SLURM (tests/slurm/demo.sh, which `make test-slurm` runs on the demo): a single-node cluster,
`snakemake --profile profiles/slurm` with no other flag but the first status check's delay (5 s instead of 40),
and the same scores and tables as a local run.
The suite runs it on the tiny config of the local run the workflow tests share (tests/conftest.py,
finished_run), so it adds one tiny run through SLURM instead of two demo runs; it needs a cluster, so it runs
only when asked: TST_SLURM_TEST=1."""

import os
import signal
import subprocess

import pytest
import yaml
from conftest import (
    assert_same_artifacts,
    copy_workflow,
    shared_run_folder,
    slurm_test_skip_reason,
    tiny_config,
)

SCRIPTS = ("cluster.sh", "demo.sh")


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_parse(repo_root, script):
    script_path = str(repo_root / "tests" / "slurm" / script)
    r = subprocess.run(["bash", "-n", script_path], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


@pytest.mark.slurm
def test_demo_through_slurm_equals_a_local_run(repo_root, tmp_path, tmp_path_factory, request):
    """The SLURM run goes from another copy of the workflow (copy_workflow), in another folder: it is also
    test_run.py's second run of the same config (test_identical_runs_write_identical_artifacts skips where
    this test runs), so every score, data, evaluator and table file must be byte-identical to the local run's."""
    reason = slurm_test_skip_reason()
    if reason:
        pytest.skip(reason)
    # The SLURM run starts first, beside the shared local run of the same config (finished_run: run here, or
    # by the other xdist worker, or already done); demo.sh compares the two after its SLURM run, which is the
    # slower (the same jobs behind submissions and status checks); were the local run ever unfinished then, the
    # compare would find its files missing and fail. Status checks every 5 s from the first (the plugin's default
    # first check waits 40 s, on every submission of this short run).
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(tiny_config(repo_root)))
    clone = copy_workflow(repo_root, tmp_path / "clone")
    output = tmp_path / "demo.sh.log"
    with open(output, "w") as out:
        script = subprocess.Popen(
            [str(repo_root / "tests" / "slurm" / "demo.sh")],
            env={
                **os.environ,
                "TST_SLURM_WORK": str(tmp_path / "runs"),
                "TST_SLURM_CONFIG": str(tmp_path / "tiny.yaml"),
                "TST_SLURM_WORKFLOW": str(clone),
                "TST_LOCAL_RUN": str(shared_run_folder(tmp_path_factory)),
                "TST_SLURM_POLL": "5",
            },
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped with its snakemake if the local run fails
        )
        try:
            finished_run = request.getfixturevalue("finished_run")
            returncode = script.wait(timeout=7200)
        finally:
            if script.poll() is None:
                os.killpg(script.pid, signal.SIGTERM)
    log = output.read_text()
    assert returncode == 0, log[-4000:]
    assert (finished_run / "config.yaml").read_text() == (tmp_path / "tiny.yaml").read_text()
    assert "results/demo/scores:" in log and "byte-identical" in log
    assert assert_same_artifacts(finished_run, tmp_path / "runs" / "slurm") > 50
