"""The code style the project keeps: ruff on the Python, snakefmt on the workflow, snakemake --lint."""

import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def run(repo_root, *cmd):
    return subprocess.run(
        [str(BIN / cmd[0]), *cmd[1:]], cwd=repo_root, capture_output=True, text=True, timeout=300, check=False
    )


def test_ruff(repo_root):
    r = run(repo_root, "ruff", "check", ".")
    assert r.returncode == 0, r.stdout[-3000:]


def test_ruff_format(repo_root):
    r = run(repo_root, "ruff", "format", "--check", ".")
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:] + "\n(run make format)"


def test_snakefmt(repo_root):
    r = run(repo_root, "snakefmt", "--check", "Snakefile", "rules")
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]


def test_snakemake_lint(repo_root, tmp_path):
    (tmp_path / "config.yaml").write_bytes((repo_root / "config.yaml").read_bytes())
    r = subprocess.run(
        [str(BIN / "snakemake"), "-s", str(repo_root / "Snakefile"), "--lint"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0 and "Congratulations" in r.stdout + r.stderr, (r.stdout + r.stderr)[-3000:]


def test_common_smk_stays_small(repo_root):
    assert len((repo_root / "rules" / "common.smk").read_text().splitlines()) <= 250


def test_no_tst_module_over_500_lines(repo_root):
    """A module that outgrows 500 lines does two jobs: it is split along them (CONTRIBUTING.md, Layout)."""
    sizes = {
        p.relative_to(repo_root): len(p.read_text().splitlines()) for p in (repo_root / "tst").rglob("*.py")
    }
    assert len(sizes) > 100
    assert {str(p): n for p, n in sizes.items() if n > 500} == {}


def test_tests_mirror_tst(repo_root):
    """tests/ is laid out like tst/: a folder per tst subpackage (every one has its folder), tests/workflow for the
    Snakefile, rules and profiles, tests/slurm for the SLURM scripts; test module names are unique (conftest.py
    puts every test folder on sys.path)."""
    tests, tst = repo_root / "tests", repo_root / "tst"
    packages = {p.name for p in tst.iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == packages | {"workflow", "slurm"}, sorted(folders ^ (packages | {"workflow", "slurm"}))
    names = [p.name for p in tests.rglob("test_*.py")]
    assert len(names) == len(set(names)), sorted(n for n in set(names) if names.count(n) > 1)
    assert len(names) > 60  # the suite itself, not an empty walk
