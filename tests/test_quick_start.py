"""The README's commands run: every `tst` and `snakemake` command of its `## Quick start` block, on a finished run
(the suite's shared tiny run, copied, so the commands' files do not touch it). The block names the demo's last
checkpoint; the test derives that name from config.yaml and runs the commands with the tiny run's last one."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, tiny_config

from tst import afterrun, layout, stages

BIN = Path(sys.executable).parent


def quick_start_commands(readme: str) -> list[str]:
    """The commands of the first ```bash block under `## Quick start`: continuation lines joined, comments
    and blank lines left out."""
    section = readme.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("\n```", 1)[0]
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()  # no command of the block has a '#' of its own
        if line and not line.startswith("#"):
            commands.append(re.sub(r"\s+", " ", line))
    return commands


def last_checkpoint(config: dict) -> str:
    return stages.checkpoints(config)[-1]


def test_the_block_names_the_demos_last_checkpoint_and_only_make_targets_that_exist():
    commands = quick_start_commands((REPO / "README.md").read_text())
    demo = yaml.safe_load((REPO / "config.yaml").read_text())
    last = last_checkpoint(demo)
    assert last == "ep4.0"  # transfer.epochs 4, 2 checkpoints per epoch
    tst = [c for c in commands if ".venv/bin/tst " in c]
    assert len(tst) == 2 and any(f"checkpoints/{last}.pt" in c for c in tst)
    assert any(f"test.{last}.0.txt" in c for c in tst)
    assert last in stages.test_checkpoints(demo)  # its test transfers exist after make run
    makefile = (REPO / "Makefile").read_text()
    targets = [c.split()[1] for c in commands if c.startswith("make ")]
    assert targets == ["run", "report", "test"]
    for target in targets:
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target
    # `tst transfer --help` names the same file
    from tst.cli.transfer import demo_last_checkpoint

    assert demo_last_checkpoint() == layout.checkpoint("demo", "M0", 1, last)


def test_afterrun_message_names_the_leaderboard_the_folder_and_the_report_command():
    text = afterrun.message(["demo"], ["configs/yelp.yaml", "my overlay.yaml"])
    assert "results/demo/tables/leaderboard.md" in text and "all outputs in results/demo/" in text
    assert "make report" in text
    assert (
        ".venv/bin/snakemake --report results/report.html --configfile configs/yelp.yaml 'my overlay.yaml'"
        in text
    )
    assert afterrun.report_command([]) == "snakemake --report results/report.html"


def test_make_report_repeats_the_last_make_runs_arguments(tmp_path):
    """make run writes its SNAKEMAKE_ARGS to results/.make_run_args; make report reads them (make -n: printed,
    not run; in a folder of its own)."""

    def dry(*args):
        out = subprocess.run(
            ["make", "-n", "-s", "-f", str(REPO / "Makefile"), *args, f"VENV={BIN.parent}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout

    assert "--report results/report.html" in dry("report") and "--configfile" not in dry("report")
    (tmp_path / "results").mkdir()
    (tmp_path / afterrun.LAST_RUN_ARGS).write_text("--configfile configs/yelp.yaml\n")
    assert "--configfile configs/yelp.yaml --report results/report.html" in dry("report")
    given = dry("report", "SNAKEMAKE_ARGS=--configfile configs/amazon.yaml")
    assert "configs/amazon.yaml" in given and "yelp" not in given


@pytest.mark.slow
def test_every_tst_and_snakemake_command_of_the_quick_start_runs(finished_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(finished_run, run, symlinks=True)
    demo_last = last_checkpoint(yaml.safe_load((REPO / "config.yaml").read_text()))
    tiny_last = last_checkpoint(tiny_config(REPO))
    assert tiny_last in stages.test_checkpoints(tiny_config(REPO))
    ran = []
    for command in quick_start_commands((REPO / "README.md").read_text()):
        if command == "make report":  # its snakemake command, as the Makefile gives it (make -n)
            printed = subprocess.run(
                ["make", "-n", "-s", "-f", str(REPO / "Makefile"), "report", f"VENV={BIN.parent}"],
                cwd=run,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            command = printed + " -s " + shlex.quote(str(REPO / "Snakefile"))
        elif ".venv/bin/tst " in command:
            command = command.replace(".venv/bin/tst", shlex.quote(str(BIN / "tst"))).replace(
                demo_last, tiny_last
            )
            if " score " in command:  # at the tiny run's precision (fp32; the demo's auto is tst score's too)
                command += f" --precision {tiny_config(REPO)['evaluators']['precision']}"
        else:
            continue  # make run (the workflow, as finished_run ran it) and make test (this suite)
        result = subprocess.run(
            command, shell=True, cwd=run, capture_output=True, text=True, timeout=900, check=False
        )
        assert result.returncode == 0, (command, result.stderr[-3000:])
        ran.append((command, result.stdout))
    assert len(ran) == 3
    assert (run / afterrun.REPORT).stat().st_size > 10_000
    score = json.loads(ran[1][1])  # the score JSON
    assert score["n_sentences"] > 0 and "acc" in score["metrics"] and score["signature"]["evaluators"]
    # the numbers of the workflow's score file for the same two files (tests/cli/test_score_routes.py: every system)
    workflow = json.loads((run / layout.score("demo", "M0.seed1", "test", tiny_last)).read_text())
    assert score["n_sentences"] == workflow["n_sentences"]
    need = {
        "bleu_ref_corpus",
        "bleu_ref_sentence",
        "bleu_ref_st",
        "attribute_hit",
    }  # no --references, --lists
    need |= {k for k in workflow["metrics"] if k.startswith("naturalness_")}  # no --system
    assert set(workflow["metrics"]) - set(score["metrics"]) == need
    for key in set(workflow["metrics"]) - need:
        assert score["metrics"][key]["score"] == pytest.approx(workflow["metrics"][key]["score"], rel=1e-6), (
            key
        )
    assert len(ran[2][1].splitlines()) == 1 and ran[2][1].strip()  # one transferred line
