"""requirements.lock pins every package of the tested environment exactly; pyproject.toml's dependencies are
compatible ranges that hold the lock's versions (snakemake and its SLURM plugin an extra, [workflow]); every
envs/*.yaml carries the lock's pins; the venv running the suite is the lock's."""

import os
import re
import shutil
import subprocess
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins(repo_root) -> dict[str, str]:
    pins = {}
    for n, line in enumerate((repo_root / "requirements.lock").read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = PIN.match(line)
        assert match, f"requirements.lock, line {n}: {line!r} is not an exact pin (name==version)"
        name = canonical(match.group(1))
        assert name not in pins, f"requirements.lock, line {n}: {name} pinned twice"
        pins[name] = match.group(2)
    return pins


def project(repo_root) -> dict:
    return tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]


def requirements(repo_root) -> dict[str, list[Requirement]]:
    """ "dependencies" and each extra -> its requirements (the extras' own package, tst-pipeline[...], left out)."""
    p = project(repo_root)
    groups = {"dependencies": [Requirement(d) for d in p["dependencies"]]}
    for extra, deps in p.get("optional-dependencies", {}).items():
        groups[extra] = [
            Requirement(d) for d in deps if canonical(Requirement(d).name) != canonical(p["name"])
        ]
    return groups


def test_the_lock_pins_every_package_once_and_not_the_project(repo_root):
    pins = lock_pins(repo_root)
    assert len(pins) > 100  # the whole environment, transitive dependencies included
    assert "tst-pipeline" not in pins
    # the three packages whose size or role the README names: torch's public version, without a build label
    assert pins["torch"] == "2.13.0" and "snakemake" in pins and "pytest" in pins


def test_every_dependency_is_a_range_that_holds_the_locked_version(repo_root):
    pins = lock_pins(repo_root)
    for group, reqs in requirements(repo_root).items():
        assert reqs, group
        for req in reqs:
            name = canonical(req.name)
            operators = {s.operator for s in req.specifier}
            assert "==" not in operators and ">=" in operators, f"{group}: {req} is not a range"
            assert name in pins, f"{group}: {name} is not in requirements.lock"
            assert req.specifier.contains(pins[name], prereleases=True), (
                f"{group}: {req} excludes requirements.lock's {name}=={pins[name]}"
            )


def test_torch_admits_older_releases_and_the_cpu_build(repo_root):
    (torch,) = [r for r in requirements(repo_root)["dependencies"] if r.name == "torch"]
    for admitted in ("2.6.0", "2.12.1", "2.13.0", "2.13.0+cpu"):
        assert torch.specifier.contains(admitted), admitted
    for refused in ("2.5.1", "2.14.0"):
        assert not torch.specifier.contains(refused), refused


def test_snakemake_is_an_extra_that_the_test_extra_includes(repo_root):
    groups = requirements(repo_root)
    names = {g: {canonical(r.name) for r in reqs} for g, reqs in groups.items()}
    assert not {n for n in names["dependencies"] if n.startswith("snakemake")}
    assert names["workflow"] == {"snakemake", "snakemake-executor-plugin-slurm"}
    test = project(repo_root)["optional-dependencies"]["test"]
    assert "tst-pipeline[workflow]" in test and {"pytest", "pytest-xdist", "ruff"} <= names["test"]


def test_every_env_file_uses_the_lock_pins(repo_root):
    pins = lock_pins(repo_root)
    env_files = sorted((repo_root / "envs").glob("*.yaml"))
    assert len(env_files) >= 6, "one env file per rule group"
    for env_file in env_files:
        env = yaml.safe_load(env_file.read_text())
        pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
        for dep in pip_section:
            match = PIN.match(dep)
            assert match, f"{env_file.name}: {dep!r} is not an exact pin"
            name, pinned = canonical(match.group(1)), match.group(2)
            assert name in pins, f"{env_file.name}: {name} is not in requirements.lock"
            assert pins[name] == pinned, (
                f"{env_file.name}: {name}=={pinned}, requirements.lock has {pins[name]}"
            )


def test_the_suites_environment_is_the_locks(repo_root):
    """Every locked package installed here has the locked version (make install installs with the lock as
    constraints; a local build label such as torch's +cpu aside). Packages absent here (another Python's
    markers) are not asked for."""
    pins = lock_pins(repo_root)
    installed, differ = 0, []
    for name, pinned in pins.items():
        try:
            have = Version(version(name))
        except PackageNotFoundError:
            continue
        installed += 1
        if have.public != Version(pinned).public:
            differ.append(f"{name}: {have} installed, requirements.lock {pinned}")
    if installed < len(pins) // 2:
        pytest.skip(f"only {installed} of the lock's {len(pins)} packages installed: not the lock's venv")
    assert differ == [], "rebuild the venv (make install) or update requirements.lock"


def make_printed(repo_root, target: str, venv: Path, path: str | None = None) -> list[str]:
    """The commands `make -n -s target VENV=venv` prints (with PATH = path when given), blanks normalized."""
    out = subprocess.run(
        ["make", "-n", "-s", target, f"VENV={venv}"],
        cwd=repo_root,
        env={**os.environ, **({"PATH": path} if path is not None else {})},
        capture_output=True,
        text=True,
        check=True,
    )
    return [" ".join(line.split()) for line in out.stdout.splitlines() if line.strip()]


def test_make_install_uses_the_lock_and_the_cpu_index_where_there_is_no_nvidia_smi(repo_root, tmp_path):
    """make install (printed, make -n): torch alone first, from the CPU index unless nvidia-smi is on PATH, then
    the package with both extras, the lock as constraints each time."""

    def printed(path: str) -> list[str]:
        lines = make_printed(repo_root, "install", tmp_path / "venv", path)
        return [line for line in lines if " -m pip install " in line]

    plain = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not Path(p, "nvidia-smi").exists()
    )
    if not shutil.which("make", path=plain):
        pytest.skip("no make")
    cpu = printed(plain)
    assert len(cpu) == 3 and cpu[0].endswith("--upgrade pip")
    assert cpu[1].endswith(
        "-c requirements.lock --no-deps --extra-index-url https://download.pytorch.org/whl/cpu torch"
    )
    assert cpu[2].endswith('-c requirements.lock -e ".[workflow,test]"')
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "nvidia-smi").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "nvidia-smi").chmod(0o755)
    gpu = printed(f"{tmp_path / 'bin'}{os.pathsep}{plain}")
    assert gpu[1].endswith("-c requirements.lock --no-deps torch") and "download.pytorch.org" not in " ".join(
        gpu
    )


def test_make_install_locked_installs_the_lock_and_builds_nothing_here(repo_root, tmp_path):
    """make install-locked (printed, make -n), which .ci/run runs for its second venv beside the first's install:
    the venv, pip and torch as make install has them, then every package of the lock, and no editable install
    (which would build in the repository while the other install builds there too)."""
    if not shutil.which("make"):
        pytest.skip("no make")
    install, locked = (make_printed(repo_root, t, tmp_path / "venv") for t in ("install", "install-locked"))
    assert locked[:3] == install[:3] and locked[2].endswith(" torch")
    assert locked[3:] == [
        f'"{tmp_path / "venv" / "bin" / "python"}" -m pip install --quiet -r requirements.lock'
    ]
    assert not any(" -e " in line for line in locked)
