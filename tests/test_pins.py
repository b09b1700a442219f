"""pyproject.toml pins every dependency exactly, and every envs/*.yaml carries the same pins."""

import re
import tomllib

import yaml

PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject_pins(repo_root):
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    deps = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        deps += extra
    pins = {}
    for dep in deps:
        match = PIN.match(dep)
        assert match, f"pyproject.toml: {dep!r} is not an exact pin (name==version)"
        pins[canonical(match.group(1))] = match.group(2)
    return pins


def test_torch_is_pinned_to_the_local_cpu_build(repo_root):
    assert pyproject_pins(repo_root)["torch"] == "2.13.0"


def test_every_env_file_uses_the_pyproject_pins(repo_root):
    pins = pyproject_pins(repo_root)
    env_files = sorted((repo_root / "envs").glob("*.yaml"))
    assert len(env_files) >= 6, "one env file per rule group"
    for env_file in env_files:
        env = yaml.safe_load(env_file.read_text())
        pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
        for dep in pip_section:
            match = PIN.match(dep)
            assert match, f"{env_file.name}: {dep!r} is not an exact pin"
            name, version = canonical(match.group(1)), match.group(2)
            assert name in pins, f"{env_file.name}: {name} is not a dependency in pyproject.toml"
            assert pins[name] == version, f"{env_file.name}: {name}=={version}, pyproject has {pins[name]}"
