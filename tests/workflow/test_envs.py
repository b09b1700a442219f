"""Every rule that runs project code has `conda:` pointing at an env that lists every package its script
imports, directly or through the tst modules it uses (the same walk as the rules' code hash)."""

import ast
import re
import sys
from importlib.metadata import packages_distributions

import yaml

from tst.codehash import modules_of


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def rules_of(repo_root) -> dict[str, tuple[str | None, str | None]]:
    """rule name -> (conda env name, script file name) from rules/*.smk."""
    out = {}
    for smk in sorted((repo_root / "rules").glob("*.smk")):
        for block in re.split(r"^rule ", smk.read_text(), flags=re.MULTILINE)[1:]:
            name = block.split(":", 1)[0].strip()
            env = re.search(r'env\("(\w+)"\)', block)
            script = re.search(r'script:\s*\n\s*"\.\./scripts/([\w.]+)"', block)
            out[name] = (env and env.group(1), script and script.group(1))
    return out


def third_party(path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("tst", "__future__")}


def test_every_rule_runs_a_script_in_an_env(repo_root):
    rules = rules_of(repo_root)
    assert len(rules) >= 18
    for name, (env, script) in rules.items():
        assert script, f"rule {name}: no `script:` (rules wire files and make one call)"
        assert env and (repo_root / "envs" / f"{env}.yaml").is_file(), f"rule {name}: no conda env"


def test_envs_list_every_import_of_their_rules(repo_root):
    dists = packages_distributions()
    for name, (env, script) in rules_of(repo_root).items():
        spec = yaml.safe_load((repo_root / "envs" / f"{env}.yaml").read_text())
        listed = {
            canonical(d.split("==")[0])
            for d in next(x["pip"] for x in spec["dependencies"] if isinstance(x, dict))
        }
        path = repo_root / "scripts" / script
        imports = third_party(path)
        for module in modules_of(path).values():
            imports |= third_party(module)
        needed = {canonical(d) for m in imports for d in dists.get(m, [m])}
        assert needed <= listed, f"envs/{env}.yaml lacks {sorted(needed - listed)} (rule {name})"


def test_scripts_find_the_package_in_a_conda_env(repo_root):
    """Snakemake puts the scripts folder on sys.path; scripts/tst links to the package."""
    link = repo_root / "scripts" / "tst"
    assert link.is_symlink() and link.resolve() == (repo_root / "tst").resolve()
