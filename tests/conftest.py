"""Shared fixtures: where the real data lives (skip with a reason when it is absent).

The tests are laid out like tst/ (tests/metrics for tst/metrics, tests/train for tst/train, ...; tests/workflow for
the Snakefile, rules and profiles; a top-level module's tests at the top). A test may import another test module's
helpers by its name (`from test_trainer import CFG`), wherever it lives: every test folder is put on sys.path here,
so test module names are unique across folders (pytest's default import mode needs that anyway)."""

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEST_FOLDERS = sorted(p for p in Path(__file__).parent.iterdir() if p.is_dir() and any(p.glob("test_*.py")))
sys.path[:0] = [str(p) for p in TEST_FOLDERS]


def shared_data_path() -> Path | None:
    """$TST_DATA_DIR, else ../shared/data beside the repository, else None."""
    env = os.environ.get("TST_DATA_DIR")
    if env:
        return Path(env) if Path(env).is_dir() else None
    default = REPO.parent / "shared" / "data"
    return default if default.is_dir() else None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_path()
    if path is None:
        pytest.skip("real data not found: set TST_DATA_DIR or place it at ../shared/data")
    return path


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


def run_script(
    name: str,
    *,
    input=None,
    output=None,
    params=None,
    wildcards=None,
    log=None,
    threads=1,
    config=None,
    rule=None,
):
    """Run scripts/{name}.py as Snakemake's `script:` does: with a `snakemake` object (named lists for
    input, output, params, wildcards, log). Dicts give named entries, lists positional ones."""
    import runpy
    from types import SimpleNamespace

    from snakemake.iocontainers import Namedlist

    def named(x):
        if isinstance(x, dict):
            out = Namedlist()
            for key, value in x.items():
                start = len(out)
                out.extend(value if isinstance(value, list) else [value])
                out._set_name(key, start, len(out) if isinstance(value, list) else None)
            return out
        return Namedlist(list(x or []))

    sm = SimpleNamespace(
        input=named(input),
        output=named(output),
        params=named(params),
        wildcards=named(wildcards),
        log=named(log or []),
        threads=threads,
        config=config or {},
        rule=rule or name,
    )
    return runpy.run_path(str(REPO / "scripts" / f"{name}.py"), init_globals={"snakemake": sm})


def planned_jobs(dry_run_output: str) -> dict:
    """Rule -> count from the 'Job stats' table of a dry run ({} when nothing is to be done)."""
    jobs, in_table = {}, False
    for line in dry_run_output.splitlines():
        if line.startswith("job ") and "count" in line:
            in_table = True
            continue
        if in_table:
            parts = line.split()
            if not parts or parts[0] == "total":
                break
            if len(parts) == 2 and parts[1].isdigit():
                jobs[parts[0]] = int(parts[1])
    return jobs


class Emb:
    """A tiny word-embedding table (the KeyedVectors interface the metrics use); counts lookups."""

    def __init__(self, table, dim: int = 2):
        import numpy as np

        self.table = {w: np.array(v, dtype=float) for w, v in table.items()}
        self.dim = dim
        self.lookups = 0

    def get(self, w):
        self.lookups += 1
        return self.table.get(w)

    def __contains__(self, w):
        return w in self.table
