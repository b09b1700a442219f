"""bench/times.py: the README's and docs/performance.md's time tables are made from its newest results file of
each machine; pytest's and Snakemake's own lines are read by hand-checked parsers."""

import importlib.util
import json

from conftest import REPO

spec = importlib.util.spec_from_file_location("times", REPO / "bench" / "times.py")
times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(times)
spec = importlib.util.spec_from_file_location("run_time", REPO / "bench" / "run_time.py")
run_time = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_time)

PYTEST = """........s..F
============================= slowest 25 durations =============================
412.50s call     tests/workflow/test_run.py::test_the_demo_runs
 30.25s setup    tests/test_api.py::test_api_equals_cli
0.50s teardown tests/x.py::test_y[a b]
=========================== short test summary info ============================
FAILED tests/a.py::test_b
1 failed, 1040 passed, 12 skipped, 2 deselected in 611.30s (0:10:11)
"""


def test_pytest_summary_by_hand():
    s = times.pytest_summary(PYTEST)
    assert s["pytest_s"] == 611.30
    assert s["counts"] == {"failed": 1, "passed": 1040, "skipped": 12, "deselected": 2}
    assert [(t["s"], t["phase"], t["test"]) for t in s["slowest"]] == [
        (412.5, "call", "tests/workflow/test_run.py::test_the_demo_runs"),
        (30.25, "setup", "tests/test_api.py::test_api_equals_cli"),
        (0.5, "teardown", "tests/x.py::test_y[a b]"),
    ]


def test_jobs_from_snakemakes_last_progress_line():
    log = "1 of 93 steps (1%) done\n...\n92 of 93 steps (99%) done\n93 of 93 steps (100%) done\n"
    assert run_time.jobs_done(log) == 93 and run_time.jobs_done("nothing to be done\n") is None


def test_the_docs_tables_are_the_newest_results_files():
    """docs/performance.md shows, between its markers, the tables bench/times.py makes of the newest
    bench/results/*.json of each machine, and the README the newest of them: the figures a reader sees are the
    measured ones."""
    paths = times.newest_by_machine()
    assert paths, "bench/results holds no measurement: run python bench/times.py"
    records = [times.load(p) for p in paths.values()]
    assert all(r["version"] and r["runs"] for r in records)
    assert times.DOCS == {times.REPO / "README.md": 1, times.REPO / "docs" / "performance.md": None}
    for doc, newest in times.DOCS.items():
        expected = f"{times.BEGIN}\n{times.tables(records, newest)}\n{times.END}"
        assert expected in doc.read_text(encoding="utf-8"), f"{doc}: run python bench/times.py --tables"


def test_the_table_rows_by_hand(tmp_path):
    record = {
        "version": "9.9.9",
        "date": "2026-01-02",
        "file": "2026-01-02-9.9.9.json",
        "machine": {"cpu": "Some CPU", "cpus": 2, "bf16_flags": []},
        "runs": {
            "demo": {
                "wall_s": 179.6,
                "busy_core_s": 301.2,
                "jobs": 93,
                "load_1min_before": 0.05,
                "version": "9.9.8",
            },
            "suite": {"pytest_s": 601.0, "counts": {"passed": 10, "skipped": 2}, "load_1min_before": 0.1},
            "quick": {"pytest_s": 169.6, "counts": {"passed": 9, "deselected": 3}, "load_1min_before": None},
        },
    }
    text = times.table(record)
    assert "2 cores (Some CPU; no `avx512_bf16` or `amx_bf16`)" in text
    # the demo measured by an earlier version (carried over), the suite by the file's
    assert (
        "| 9.9.8 | 3 min 00 s | 301 | 93 | 0.05 |" in text and "| 9.9.9 | 10 min 01 s | | 12 | 0.10 |" in text
    )
    # the quick suite below the whole one, its deselected tests not counted, no load recorded (a saved output)
    assert text.endswith(
        "| `make test-quick` (the same without the workflow runs and longer trainings) | 9.9.9 | 2 min 50 s | | 9 | - |"
    )
    doc = tmp_path / "d.md"
    doc.write_text(f"a\n{times.BEGIN}\nold\n{times.END}\nb\n")
    times.write_tables([record], docs={doc: None})
    assert doc.read_text() == f"a\n{times.BEGIN}\n{text}\n{times.END}\nb\n"
    json.dumps(record)


def test_each_machine_has_its_own_newest_file_and_table(tmp_path):
    """Files of two machines: each machine's newest is found by its name (maker, family, cores, bf16 flags), a
    figure is carried over only from the same machine's file, and the tables show each machine's newest, the newest
    measurement first."""
    amd = {"cpu": "AMD EPYC 7B13", "cpus": 2, "bf16_flags": []}
    intel = {"cpu": "Intel(R) Xeon(R) Processor", "cpus": 2, "bf16_flags": ["amx_bf16", "avx512_bf16"]}
    assert times.machine_name(amd) == "amd-epyc-2c"
    assert times.machine_name(intel) == "intel-xeon-2c-amx_bf16-avx512_bf16"
    demo = {"wall_s": 60.0, "busy_core_s": 100.0, "jobs": 94, "load_1min_before": 0.1}
    files = {
        "2026-01-01-1.0.0.json": (amd, 400.0),  # an older file name, without the machine
        "2026-01-03-1.1.0-amd-epyc-2c.json": (amd, 300.0),
        "2026-01-02-1.1.0-intel-xeon-2c-amx_bf16-avx512_bf16.json": (intel, 200.0),
    }
    for name, (machine, wall) in files.items():
        record = {
            "version": name[11:16],
            "date": name[:10],
            "machine": machine,
            "runs": {"demo": {**demo, "wall_s": wall}},
        }
        (tmp_path / name).write_text(json.dumps(record))
    newest = times.newest_by_machine(tmp_path)
    assert {k: p.name for k, p in newest.items()} == {
        "amd-epyc-2c": "2026-01-03-1.1.0-amd-epyc-2c.json",
        "intel-xeon-2c-amx_bf16-avx512_bf16": "2026-01-02-1.1.0-intel-xeon-2c-amx_bf16-avx512_bf16.json",
    }
    assert times.newest(tmp_path, machine=intel).name.startswith("2026-01-02")
    assert times.newest(tmp_path).name.startswith("2026-01-03")
    assert times.newest(tmp_path, machine={**intel, "bf16_flags": ["avx512_bf16"]}) is None
    text = times.tables([times.load(p) for p in newest.values()])
    amd_at, intel_at = (
        text.index("(AMD EPYC 7B13; no `avx512_bf16`"),
        text.index("(Intel(R) Xeon(R) Processor; `amx_bf16`"),
    )
    assert amd_at < intel_at  # the newer measurement first
    assert "| 5 min 00 s | 100 |" in text and "| 3 min 20 s | 100 |" in text and "6 min 40 s" not in text
    assert times.tables([times.load(p) for p in newest.values()], 1) == text[:intel_at].rsplit("\n\n", 1)[0]
