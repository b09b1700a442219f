"""What a released workflow carries: supported Pythons, license, citation, catalog entry, CI."""

import re
import sys
import tomllib

import yaml
from packaging.specifiers import SpecifierSet

# Pythons on which every pin of requirements.lock was checked to have a wheel: pip install --dry-run --no-deps
# --only-binary=:all: per pin with the real 3.12.1 and 3.13.0 interpreters, then the whole tree (161
# packages, all wheels but the pure-Python sdist connection_pool) resolved; 3.11 is the venv's own.
# 3.10: 10 pins have no release for it (snakemake, numpy, pandas, scipy, scikit-learn, pyarrow, matplotlib,
# ...). 3.14: no interpreter here to check with, so not claimed.
VERIFIED = ["3.11", "3.12", "3.13"]
NOT_SUPPORTED = ["3.10", "3.14"]


def project(repo_root):
    return tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]


def test_requires_python_admits_exactly_the_verified_versions(repo_root):
    spec = SpecifierSet(project(repo_root)["requires-python"])
    for version in VERIFIED:
        assert f"{version}.0" in spec, f"{version} verified but excluded"
    for version in NOT_SUPPORTED:
        assert f"{version}.0" not in spec, f"{version} admitted but not verified"
    assert f"{sys.version_info.major}.{sys.version_info.minor}.0" in spec  # the interpreter running this test


def test_classifiers_and_readme_name_the_same_versions(repo_root):
    classifiers = project(repo_root)["classifiers"]
    listed = sorted(
        c.rsplit(" :: ", 1)[1]
        for c in classifiers
        if re.match(r"Programming Language :: Python :: 3\.\d+$", c)
    )
    assert listed == VERIFIED
    assert not any(c.startswith("License ::") for c in classifiers)  # the SPDX `license` field says it
    assert "Python 3.11, 3.12 or 3.13" in (repo_root / "README.md").read_text()


def test_license_is_mit(repo_root):
    text = (repo_root / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "TST pipeline authors" in text
    assert project(repo_root)["license"] == "MIT"


def test_citation_lists_the_five_papers(repo_root):
    cff = yaml.safe_load((repo_root / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "MIT"
    refs = cff["references"]
    assert len(refs) == 5
    first_authors = sorted((r["authors"][0]["family-names"], r["year"]) for r in refs)
    assert first_authors == [("Fu", 2018), ("Mir", 2019), ("Pang", 2019), ("Pang", 2019), ("Yu", 2021)]
    titles = {r["title"] for r in refs}
    # titles as printed on the papers in ../shared/papers
    assert "Unsupervised Evaluation Metrics and Learning Criteria for Non-Parallel Textual Transfer" in titles
    assert "Style Transfer in Text: Exploration and Evaluation" in titles
    assert "Evaluating Style Transfer for Text" in titles
    assert "Rethinking Sentiment Style Transfer" in titles
    for ref in refs:
        assert ref["type"] in {"conference-paper", "article"} and ref["authors"]


def test_catalog_file_names_the_workflow_config(repo_root):
    catalog = yaml.safe_load((repo_root / ".snakemake-workflow-catalog.yml").read_text())
    usage = catalog["usage"]
    desc = usage["mandatory-flags"]["desc"]
    named = re.findall(r"\b(?:configs/\w+\.yaml|config\.yaml|schemas/[\w.]+\.yaml|profiles/\w+)", desc)
    assert "config.yaml" in named and "configs/yelp.yaml" in named
    for path in named:
        assert (repo_root / path).exists(), f"{path} named in the catalog file but absent"
    assert usage["software-stack-deployment"]["conda"] is True
    assert usage["report"] is True


def test_github_workflow_runs_ci_run_on_every_supported_python(repo_root):
    ci = yaml.safe_load((repo_root / ".github" / "workflows" / "ci.yml").read_text())
    job = ci["jobs"]["test"]
    assert job["strategy"]["matrix"]["python-version"] == VERIFIED
    assert [s["run"] for s in job["steps"] if "run" in s] == ["bash .ci/run"]
    ci_run = (repo_root / ".ci" / "run").read_text()
    assert "\nmake lint\nmake test\n" in ci_run  # the whole suite on the runner's Python
    assert 'make test-quick VENV=.venv-3.13 PYTHON="$PY313"' in ci_run  # and the quick suite on 3.13
