"""The pipeline's headline times, measured and written down: the demo, the Yelp evaluation stage and the test
suite (`make test`, and `make test-quick` without its slow tests), timed on this machine and written to
bench/results/<date>-<version>-<machine>.json (<machine>: the CPU's maker and family, its cores and bf16 flags);
docs/performance.md's time tables are made from the newest such file of each machine, one table per machine, and
the README shows the newest of them.

    python bench/times.py                       # all four (~65 min on 2 idle cores), then the tables
    python bench/times.py --only demo yelp      # some of them; the others are carried over from this machine's
                                                # newest file (each row says the version that measured it)
    python bench/times.py --tables              # only rewrite the tables from the newest files
    python bench/times.py --only yelp --keep DIR   # keep each run in DIR/<name> (DIR/yelp/run: publish its leaderboard)
    python bench/times.py --only suite --suite-output FILE   # the suite's figures from a `make test` output saved
    python bench/times.py --only quick --quick-output FILE   # likewise `make test-quick`'s

Each run starts from nothing in a temporary folder (bench/run_time.py's time_run: wall, busy core-seconds, jobs,
the CPU's bf16 flags, the load before). The suites are `make test`'s and `make test-quick`'s commands (pytest -n 2
--dist worksteal) in this checkout; each record keeps pytest's own time, the counts and the slowest tests. Measure
on an idle machine: the file records the 1-minute load average before each run, and the tables print it. A
figure is only carried over from a file of the same machine (CPU model, cores, bf16 flags): times from two
machines never share a table.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
FP32 = "evaluators: {precision: fp32}\n"  # the overlay of a run measured in fp32 on any CPU
RUNS = {  # what each measured run is: its overlays after config.yaml (FP32: that one) and its label in the tables
    "demo": ([], "the demo (`make run`: every rule on the generated corpus, 4 transfer models)"),
    "yelp": (
        ["configs/yelp.yaml", "configs/scores_only.yaml", FP32],
        (
            "the Yelp evaluation stage (`configs/yelp.yaml configs/scores_only.yaml`, fp32: every evaluator, every "
            "published system scored)"
        ),
    ),
}
SUITES = {  # pytest's arguments after `make test`'s (-q -n 2 --dist worksteal) and each one's label in the tables
    "suite": ([], "`make test` (pytest's time, 2 workers)"),
    "quick": (
        ["-m", "not slow"],
        "`make test-quick` (the same without the workflow runs and longer trainings)",
    ),
}
BEGIN, END = "<!-- bench/times.py: begin -->", "<!-- bench/times.py: end -->"
# Each document's table block: the README the newest measurement's table, docs/performance.md every machine's
DOCS = {REPO / "README.md": 1, REPO / "docs" / "performance.md": None}


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def pytest_summary(output: str) -> dict:
    """What pytest's output says: its own seconds and the counts of its last summary line, and the slowest tests
    of its --durations table (seconds, phase, test id), in its order."""
    summary = next((ln for ln in reversed(output.splitlines()) if re.search(r" in [\d.]+s", ln)), "")
    counts = {
        k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|deselected)", summary)
    }
    seconds = re.search(r" in ([\d.]+)s", summary)
    slowest = [
        {"s": float(s), "phase": phase, "test": test}
        for s, phase, test in re.findall(
            r"^\s*([\d.]+)s (call|setup|teardown)\s+(\S.*)$", output, flags=re.MULTILINE
        )
    ]
    return {"pytest_s": float(seconds.group(1)) if seconds else None, "counts": counts, "slowest": slowest}


def time_suite(name: str = "suite") -> dict:
    """`make test`'s pytest command (name "suite"), or `make test-quick`'s ("quick"), run in this checkout."""
    venv_bin = Path(sys.executable).parent
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            str(venv_bin / "pytest"),
            "-q",
            "-n",
            "2",
            "--dist",
            "worksteal",
            "-p",
            "no:cacheprovider",
            *SUITES[name][0],
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    out = proc.stdout + proc.stderr
    return {
        "returncode": proc.returncode,
        "wall_s": round(time.perf_counter() - t0, 1),
        "load_1min_before": load,
        **pytest_summary(out),
    }


def this_machine() -> dict:
    from tst.device import CPU_BF16_FLAGS, cpu_flags

    return {
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "bf16_flags": sorted(cpu_flags() & set(CPU_BF16_FLAGS)),
    }


def machine_name(machine: dict) -> str:
    """A file-name part for a machine: its CPU's maker and family, its cores, its bf16 flags ("amd-epyc-2c",
    "intel-xeon-2c-amx_bf16-avx512_bf16")."""
    words = [w for w in re.sub(r"\(\w+\)", " ", machine["cpu"]).lower().split() if w.isalnum()]
    return "-".join([*words[:2], f"{machine['cpus']}c", *machine["bf16_flags"]])


def newest_by_machine(results: Path = RESULTS) -> dict[str, Path]:
    """The newest results file of each machine that has one, by machine_name (a file's name starts with its date,
    so the names sort by date)."""
    out = {}
    for path in sorted(results.glob("*.json")):
        out[machine_name(json.loads(path.read_text())["machine"])] = path
    return out


def newest(results: Path = RESULTS, machine: dict | None = None) -> Path | None:
    """The newest results file of `machine` (None: of any machine)."""
    files = newest_by_machine(results)
    if machine is not None:
        return files.get(machine_name(machine))
    return max(files.values()) if files else None


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def table(record: dict) -> str:
    """The Markdown the README and docs/performance.md show between BEGIN and END, from one results file."""
    m = record["machine"]
    flags = ", ".join(f"`{f}`" for f in m["bf16_flags"]) or "no `avx512_bf16` or `amx_bf16`"
    lines = [
        (
            f"Version {record['version']}, measured {record['date']} with `bench/times.py` on {m['cpus']} cores "
            f"({m['cpu']}; {flags}); file `bench/results/{record['file']}`."
        ),
        "",
        "| run | version | wall | busy core-s | jobs / tests | load before |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, (_, label) in RUNS.items():
        r = record["runs"].get(name)
        if r:
            lines.append(
                f"| {label} | {r.get('version', record['version'])} | {duration(r['wall_s'])} | "
                f"{r['busy_core_s']:,.0f} | {r['jobs']} | {r['load_1min_before']:.2f} |"
            )
    for name, (_, label) in SUITES.items():
        s = record["runs"].get(name)
        if s:
            n = sum(v for k, v in s["counts"].items() if k in ("passed", "failed", "skipped"))
            before = "-" if s["load_1min_before"] is None else f"{s['load_1min_before']:.2f}"
            lines.append(
                f"| {label} | {s.get('version', record['version'])} | {duration(s['pytest_s'])} | | {n} | "
                f"{before} |"
            )
    return "\n".join(lines)


def tables(records: list[dict], newest: int | None = None) -> str:
    """One table per machine, the newest measurement first (only the `newest` ones, if given)."""
    ordered = sorted(records, key=lambda r: r["file"], reverse=True)
    return "\n\n".join(table(r) for r in ordered[:newest])


def write_tables(records: list[dict], docs=DOCS) -> None:
    """Fill each document's block: docs maps a path to how many of the newest tables it shows (None: all)."""
    for path, newest in docs.items():
        text = tables(records, newest)
        doc = path.read_text(encoding="utf-8")
        if BEGIN not in doc or END not in doc:
            raise SystemExit(f"{path}: no {BEGIN} ... {END} block to fill")
        head, rest = doc.split(BEGIN, 1)
        path.write_text(f"{head}{BEGIN}\n{text}\n{END}{rest.split(END, 1)[1]}", encoding="utf-8")


def load(path: Path) -> dict:
    return {**json.loads(path.read_text()), "file": path.name}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", choices=[*RUNS, *SUITES], help="measure only these")
    ap.add_argument("--tables", action="store_true", help="only rewrite the tables from the newest file")
    ap.add_argument(
        "--suite-output",
        type=Path,
        help="read the suite's figures from this saved output of `make test` (on this machine) instead of running it",
    )
    ap.add_argument(
        "--quick-output",
        type=Path,
        help="likewise the quick suite's, from a saved output of `make test-quick`",
    )
    ap.add_argument(
        "--keep",
        type=Path,
        help="run each workflow in KEEP/<name> (must not exist yet) and keep it, instead of a temporary folder",
    )
    args = ap.parse_args()
    if args.keep is not None and args.keep.exists():
        sys.exit(f"--keep {args.keep}: exists already; name a folder that does not")
    if args.tables:
        files = newest_by_machine()
        if not files:
            sys.exit("no bench/results/*.json yet: run bench/times.py first")
        write_tables([load(p) for p in files.values()])
        return
    sys.path[:0] = [str(HERE), str(REPO)]
    from run_time import commit_of, time_run

    from tst import __version__

    machine = this_machine()
    previous = newest(machine=machine)
    runs = {}
    if previous and args.only:  # carried over with the version that measured them
        old = load(previous)
        runs = {k: {"version": old["version"], **v} for k, v in old["runs"].items()}
    saved = {name: getattr(args, f"{name}_output") for name in SUITES}  # --suite-output, --quick-output
    for name in args.only or [*RUNS, *SUITES]:
        print(f"timing {name} ...", flush=True)
        if name in SUITES and saved[name]:
            text = saved[name].read_text(errors="replace")
            runs[name] = {"from": saved[name].name, "load_1min_before": None, **pytest_summary(text)}
        elif name in SUITES:
            runs[name] = time_suite(name)
        else:
            with (
                tempfile.TemporaryDirectory(prefix=f"tst-times-{name}-")
                if args.keep is None
                else contextlib.nullcontext(args.keep / name)
            ) as tmp:
                Path(tmp).mkdir(parents=True, exist_ok=True)
                overlays = []
                for p in RUNS[name][0]:
                    if p == FP32:
                        (Path(tmp) / "fp32.yaml").write_text(FP32)
                        overlays.append(Path(tmp) / "fp32.yaml")
                    else:
                        overlays.append(REPO / p)
                runs[name] = time_run(Path(tmp) / "run", overlays)
        runs[name]["version"] = __version__
        print(json.dumps({k: v for k, v in runs[name].items() if k != "slowest"}), flush=True)
    today = datetime.date.today().isoformat()
    record = {
        "version": __version__,
        "date": today,
        "commit": commit_of(REPO),
        "machine": machine,
        "runs": runs,
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{today}-{__version__}-{machine_name(machine)}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    write_tables([load(p) for p in newest_by_machine().values()])


if __name__ == "__main__":
    main()
