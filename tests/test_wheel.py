"""The package as a researcher installs it into an environment of their own: a wheel built from the clone
(`pip wheel --no-deps`), installed into a fresh venv outside the clone that sees this environment's packages
but Snakemake's (the workflow's extra) and not the clone. From a folder outside the clone, `tst --version`
names the scoring code of the clone, and `tst score` and `tst transfer` on the suite's tiny run give the
workflow's numbers and the clone's transfers. Offline: the dependencies are this environment's, never
downloaded (--no-deps, --no-build-isolation with its setuptools)."""

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml
from conftest import copy_workflow

from tst import layout, signature, stages

# what the build reads: the project's metadata and the package, whose tst/files links point into the clone
BUILD_FILES = ("pyproject.toml", "README.md", "LICENSE", "tst", "config.yaml", "schemas", "configs")
# this environment's packages the installed wheel must not see: Snakemake and its plugins, the clone's tst
HIDDEN = ("snakemake", "tst", "tst_pipeline", "__editable__")


def run(args, cwd, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, check=False, **kw
    )


def visible_packages(into: Path) -> int:
    """A folder of links to every entry of this environment's site-packages but HIDDEN's (and .pth files,
    which only a site folder reads): the dependencies the fresh venv sees. Returns how many."""
    into.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    count = 0
    for entry in site.iterdir():
        name = entry.name.lower()
        if name.endswith(".pth") or name == "__pycache__" or any(name.startswith(h) for h in HIDDEN):
            continue
        (into / entry.name).symlink_to(entry)
        count += 1
    return count


@pytest.fixture(scope="module")
def installed(repo_root, tmp_path_factory) -> dict:
    """The wheel built and installed: its venv's bin folder, the wheel, a folder outside the clone to run in."""
    base = tmp_path_factory.mktemp("wheel")
    source = copy_workflow(repo_root, base / "source", BUILD_FILES)
    built = run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            base / "dist",
            source,
        ],
        cwd=base,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = (base / "dist").glob("tst_pipeline-*.whl")
    venv = base / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=base, timeout=120)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=base)
    assert visible_packages(base / "deps") > 50
    (Path(site.stdout.strip()) / "deps.pth").write_text(str(base / "deps") + "\n")
    put = run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel],
        cwd=base,
        timeout=300,
    )
    assert put.returncode == 0, put.stdout[-3000:] + put.stderr[-3000:]
    outside = base / "elsewhere"
    outside.mkdir()
    return {"bin": venv / "bin", "wheel": wheel, "site": Path(site.stdout.strip()), "outside": outside}


def test_the_wheel_carries_the_files_the_package_reads_and_equal_to_the_clones(installed, repo_root):
    import zipfile

    with zipfile.ZipFile(installed["wheel"]) as z:
        names = set(z.namelist())
        for packaged, clone in (
            ("tst/files/config.yaml", "config.yaml"),
            ("tst/files/config.schema.yaml", "schemas/config.schema.yaml"),
            ("tst/files/paper_dimensions.yaml", "configs/paper_dimensions.yaml"),
        ):
            assert packaged in names
            assert z.read(packaged) == (repo_root / clone).read_bytes(), packaged
    assert not any(n.startswith(("tests/", "scripts/", "rules/")) for n in names)


def test_the_clones_package_reads_the_clones_files(repo_root):
    """In the clone tst/files holds links: config.yaml, the schema and paper_dimensions.yaml exist once."""
    for packaged, clone in (
        ("config.yaml", "config.yaml"),
        ("config.schema.yaml", "schemas/config.schema.yaml"),
        ("paper_dimensions.yaml", "configs/paper_dimensions.yaml"),
    ):
        link = repo_root / "tst" / "files" / packaged
        assert link.is_symlink() and link.resolve() == (repo_root / clone).resolve(), packaged


def test_version_from_outside_the_clone_without_snakemake(installed, repo_root):
    where = run(
        [
            installed["bin"] / "python",
            "-c",
            "import importlib.util, tst; print(tst.__file__); print(importlib.util.find_spec('snakemake'))",
        ],
        cwd=installed["outside"],
    )
    assert where.returncode == 0, where.stderr
    package, snakemake = where.stdout.splitlines()
    assert Path(package) == installed["site"] / "tst" / "__init__.py"  # the wheel's package, not the clone's
    assert snakemake == "None"  # the workflow extra is not installed
    version = run([installed["bin"] / "tst", "--version"], cwd=installed["outside"], timeout=120)
    assert version.returncode == 0, version.stderr[-3000:]
    # the same scoring code as the clone's (its hash is of the code, wherever it lies), no git checkout around it
    assert (
        version.stdout
        == f"tst {signature.version()} (scoring code {signature.scoring_code()}, commit unknown)\n"
    )


def test_a_config_the_schema_refuses_stops_the_installed_command(installed, repo_root):
    """The installed package checks --config against the schema it carries (exit 2, the key named)."""
    overlay = installed["outside"] / "overlay.yaml"
    overlay.write_text("transfer: {epochs: 0}\n")
    (installed["outside"] / "rates.json").write_text("{}")
    out = run(
        [installed["bin"] / "tst", "cost", "--config", overlay, "--rates", "rates.json"],
        cwd=installed["outside"],
        timeout=120,
    )
    assert out.returncode == 2
    assert f"--config {overlay}: config key transfer.epochs: 0 is less than the minimum of 1" in out.stderr


@pytest.mark.slow
def test_installed_score_gives_the_workflows_numbers(installed, finished_run):
    """`tst score` of the installed wheel on M0's last test transfers of the tiny run (its --config the run's):
    every metric of the workflow's score file (tests/cli/test_score_routes.py: the same comparison)."""
    from test_score_routes import DATASET, cli_args, differences

    config = yaml.safe_load((finished_run / "config.yaml").read_text())
    ckpt = stages.test_checkpoints(config)[-1]
    args = cli_args(config, "M0.seed1", ckpt, False)
    args = [str(finished_run / a) if (finished_run / a).exists() else a for a in args]
    out = run(
        [installed["bin"] / "tst", "score", *args, "--config", finished_run / "config.yaml"],
        cwd=installed["outside"],
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    cli = json.loads(out.stdout)
    workflow = json.loads((finished_run / layout.score(DATASET, "M0.seed1", "test", ckpt)).read_text())
    assert differences(cli, workflow) == []
    assert len(workflow["metrics"]) >= 25
    # the same version, scoring code, evaluator files and normalization (the GMs, which tst score adds, aside)
    for field in ("version", "code", "evaluators", "normalization"):
        assert cli["signature"][field] == workflow["signature"][field], field


@pytest.mark.slow
def test_installed_transfer_writes_the_clones_transfers(installed, finished_run, tmp_path):
    """`tst transfer` of the installed wheel with M0's last checkpoint of the tiny run: the lines the clone's
    own `tst transfer` writes for the same input, one per input line."""
    config = yaml.safe_load((finished_run / "config.yaml").read_text())
    ckpt = finished_run / layout.checkpoint("demo", "M0", 1, stages.checkpoints(config)[-1])
    lines = ["John Smith was rude to us", "the food was cold and the staff was slow", "", "we loved it"]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n")
    args = [
        "transfer", ckpt, "--dataset-dir", finished_run / layout.root("demo"), "--to-style", "positive",
        "--config", finished_run / "config.yaml", "--input", tmp_path / "in.txt", "--detokenize",
    ]  # fmt: skip
    wheel = run([installed["bin"] / "tst", *args], cwd=installed["outside"], timeout=600)
    assert wheel.returncode == 0, wheel.stderr[-3000:]
    clone = subprocess.run(
        [sys.executable, "-m", "tst", *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert wheel.stdout == clone.stdout
    got = wheel.stdout.splitlines()
    assert len(got) == len(lines) and got[2] == ""  # one line out per line in, an empty one empty
