"""Shared fixtures: where the real data lives (skip with a reason when it is absent).

The tests are laid out like tst/ (tests/metrics for tst/metrics, tests/train for tst/train, ...; tests/workflow for
the Snakefile, rules and profiles; a top-level module's tests at the top). A test may import another test module's
helpers by its name (`from test_trainer import CFG`), wherever it lives: every test folder is put on sys.path here,
so test module names are unique across folders (pytest's default import mode needs that anyway)."""

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
# The team's machines keep the real data beside the clone (../shared/data): the tests, and the workflows they
# start, find it through TST_DATA_DIR, set here when it is unset and that folder exists.
if not os.environ.get("TST_DATA_DIR") and (REPO.parent / "shared" / "data").is_dir():
    os.environ["TST_DATA_DIR"] = str(REPO.parent / "shared" / "data")
# pytest-xdist's workers share the cores (`make test`: 2 workers on 2 cores): each process a test starts (`tst score`,
# a script) computes on the workers' share of them, as each job of a workflow run does (Snakemake sets
# OMP_NUM_THREADS to a job's threads). torch's default, one thread per core in every process, puts twice as many
# threads as cores to work: two `tst.battery` runs of 456 outputs side by side take 36 s with 2 threads each, 22 s
# with 1 (and 14 s / 20 s alone). An OMP_NUM_THREADS already set is kept.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    share = (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, share)))
TEST_FOLDERS = sorted(p for p in Path(__file__).parent.iterdir() if p.is_dir() and any(p.glob("test_*.py")))
sys.path[:0] = [str(p) for p in TEST_FOLDERS]


# Started first, so that pytest-xdist gives them a worker at once while the other runs the rest of the suite
# (`make test`: `--dist worksteal`, so that worker also takes over the tests queued behind them): the SLURM run
# mostly waits (submissions, status checks); the shared tiny run (the first test that asks for it) and the
# identical-runs test's second run would otherwise start late, with a worker waiting on the first one's lock or
# running alone at the end.
FIRST = (
    "tests/workflow/test_slurm_demo.py::test_demo_through_slurm_equals_a_local_run",
    "tests/workflow/test_run.py::test_every_stage_produces_its_artifacts",
    "tests/workflow/test_run.py::test_identical_runs_write_identical_artifacts",
)


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: FIRST.index(item.nodeid) if item.nodeid in FIRST else len(FIRST))  # stable


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


SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def tiny_config(repo_root: Path) -> dict:
    """config.yaml with configs/tiny.yaml over it, merged as Snakemake merges --configfile overlays: 400 sentences
    per style, 2 epochs for the evaluators, M0 and M2 for 1 epoch at small dimensions. Every rule of the demo still
    runs (tests/workflow/test_run.py, test_slurm_demo.py)."""
    from tst.config_files import merge_configs

    return merge_configs(
        [yaml.safe_load((repo_root / name).read_text()) for name in ("config.yaml", "configs/tiny.yaml")]
    )


def snakemake(workdir: Path, repo_root: Path, *args, check=True, env=None, timeout=1500):
    """snakemake -s repo_root/Snakefile --cores 2 *args in workdir (asserts success unless check=False; a later
    --cores in args wins), with `env` added to the environment, stopped after `timeout` seconds."""
    result = subprocess.run(
        [SNAKEMAKE, "-s", str(repo_root / "Snakefile"), "--cores", "2", *args],
        cwd=workdir,
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    if check:
        assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result


def refusal(repo_root: Path, workdir: Path, *configfiles: Path) -> str | None:
    """What `snakemake -n --configfile *configfiles` in workdir says when it refuses the config while it loads
    the workflow, before it plans any job: the error's text, else None (the workflow loaded). Snakemake's own API
    runs in this process: the Snakefile is parsed and every check in it runs as under the `snakemake` command,
    without starting a Python for it (~3 s on 2 cores, most of it Snakemake's imports).
    tests/test_config.py checks that the command refuses with the same text."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    cwd = os.getcwd()  # Snakemake changes into the workflow's folder
    try:
        with SnakemakeApi(OutputSettings(dryrun=True, quiet={Quietness.ALL})) as api:
            workflow = api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(configfiles=[Path(c) for c in configfiles]),
                snakefile=repo_root / "Snakefile",
                workdir=workdir,
            )
            try:
                workflow.dag()  # parses the Snakefile: the config checks run here
            except Exception as error:  # noqa: BLE001 - the refusal's text is the result
                return str(error)
    finally:
        os.chdir(cwd)
    return None


def shared_run_folder(tmp_path_factory) -> Path:
    """Where finished_run runs the tiny config, known before the run (test_slurm_demo.py starts beside it): in the
    session's folder that every pytest-xdist worker sees (`make test` runs 2), the parent of a worker's basetemp
    (pytest-N/popen-gwK), or basetemp itself without xdist."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "finished_run"


def once_per_session(tmp_path_factory, name: str, build) -> tuple[Path, object]:
    """(folder, record): build(folder) run once for the whole session in `name`, beside finished_run's folder,
    where every pytest-xdist worker sees it; its JSON-able return value is the record. The first worker to ask
    builds it while a file lock holds the others, which then reuse the folder and read the record; a failed build
    is deleted and built again by the next worker that asks (and fails there too, with its log)."""
    folder = shared_run_folder(tmp_path_factory).with_name(name)
    done = folder.with_name(name + ".done")
    with open(folder.with_name(name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            done.write_text(json.dumps(build(folder)))
    return folder, json.loads(done.read_text())


@pytest.fixture(scope="session")
def finished_run(repo_root, tmp_path_factory) -> Path:
    """The tiny config run once, locally, for the whole session (once_per_session): test_run.py's cache checks
    plan against it and compare a second run to it; test_slurm_demo.py compares a SLURM run to it. No test
    changes its bytes."""

    def build(workdir: Path) -> None:
        (workdir / "config.yaml").write_text(yaml.safe_dump(tiny_config(repo_root)))
        snakemake(workdir, repo_root)

    return once_per_session(tmp_path_factory, "finished_run", build)[0]


def planned_once(tmp_path_factory, name: str, dry_run) -> str:
    """The output of dry_run(folder), a `snakemake -n` that must succeed (its finished process), run once for
    the session in `name` (once_per_session): a plan that tests on both pytest-xdist workers read."""

    def plan(workdir: Path) -> str:
        result = dry_run(workdir)
        assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
        return result.stdout

    return once_per_session(tmp_path_factory, name, plan)[1]


@pytest.fixture(scope="session")
def default_plan(repo_root, tmp_path_factory) -> str:
    """`snakemake -n --cores 1` on config.yaml (the demo): the plan the tests that read the default DAG share."""

    def dry_run(workdir: Path):
        shutil.copy(repo_root / "config.yaml", workdir / "config.yaml")
        return snakemake(workdir, repo_root, "-n", "--cores", "1", check=False)

    return planned_once(tmp_path_factory, "default_plan", dry_run)


WORKFLOW_FILES = (
    "Snakefile",
    "config.yaml",
    "rules",
    "scripts",
    "tst",
    "envs",
    "schemas",
    "profiles",
    "report",
)


def copy_workflow(repo_root: Path, clone: Path, names=WORKFLOW_FILES) -> Path:
    """A copy of the workflow and its package in clone (what a moved or second clone is); names: what to copy."""
    clone.mkdir()
    for name in names:
        src = repo_root / name
        if src.is_dir():
            shutil.copytree(src, clone / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, clone / name)
    return clone


def slurm_test_skip_reason() -> str | None:
    """Why test_slurm_demo.py's run through SLURM is skipped here, or None when it runs (it needs a cluster)."""
    if os.environ.get("TST_SLURM_TEST") != "1":
        return "a run through SLURM, on a cluster: set TST_SLURM_TEST=1 (make test-slurm runs tests/slurm/demo.sh)"
    if shutil.which("sbatch") is None and os.geteuid() != 0:
        return "sbatch not found and not root (apt-get install slurm-wlm munge): no SLURM to run on"
    return None


def assert_same_artifacts(first: Path, second: Path) -> int:
    """Two runs of the same config wrote the same bytes: every file of results/demo's scores, data, evaluators
    and tables, the same files in both. Returns how many files were compared."""
    first_ds, second_ds = first / "results" / "demo", second / "results" / "demo"
    compared = 0
    for folder in ("scores", "data", "evaluators", "tables"):
        files = sorted(p.relative_to(first_ds) for p in (first_ds / folder).rglob("*") if p.is_file())
        assert files == sorted(
            p.relative_to(second_ds) for p in (second_ds / folder).rglob("*") if p.is_file()
        )
        for rel in files:
            assert (first_ds / rel).read_bytes() == (second_ds / rel).read_bytes(), f"{rel} differs"
            compared += 1
    return compared


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
