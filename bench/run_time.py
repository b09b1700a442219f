"""A whole workflow run from an empty folder, timed: wall seconds and busy core-seconds (the demo, stage
and floor figures of docs/performance.md).

python bench/run_time.py WORKDIR [--configfile OVERLAY.yaml ...] [--cores N] [--repo REPO]

WORKDIR must not exist (or be empty): the run starts with no results, benchmarks, logs or .snakemake. REPO's
config.yaml is copied into it (the Snakefile's default config), each OVERLAY is given after it, and snakemake runs
REPO's Snakefile there with REPO first on PYTHONPATH (so a worktree of an older commit measures that commit's code
with this venv). Examples, on 2 cores:

    python bench/run_time.py /tmp/demo                                        # the demo, as `make run`
    python bench/run_time.py /tmp/floor --configfile no_models.yaml           # transfer: {run_variants: []}
    python bench/run_time.py /tmp/stage --configfile configs/yelp.yaml no_models.yaml   # Yelp's evaluation stage

Busy core-seconds are the machine's, from /proc/stat (every CPU's time not idle and not waiting for I/O, guest
time counted once): on an idle machine they are the run's CPU, including the short jobs that Snakemake's benchmark
files undercount. The 1-minute load average before the start is printed so that a busy machine shows. It writes
WORKDIR/run_time.json and prints the same, then the per-rule table of bench/stage_times.py.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# /proc/stat's cpu line: user nice system idle iowait irq softirq steal guest guest_nice (USER_HZ ticks).
# guest and guest_nice are already inside user and nice (proc(5)), so they are not added again.
IDLE_FIELDS = (3, 4)  # idle, iowait
COUNTED_FIELDS = 8  # user .. steal


def cpu_ticks(stat_text: str) -> tuple[int, int]:
    """(busy, total) ticks of the aggregate `cpu` line of /proc/stat."""
    for line in stat_text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            ticks = [int(x) for x in parts[1 : 1 + COUNTED_FIELDS]]
            total = sum(ticks)
            return total - sum(ticks[i] for i in IDLE_FIELDS), total
    raise ValueError("no aggregate 'cpu' line in /proc/stat")


def busy_core_seconds(before: str, after: str, hz: int = 100) -> float:
    """Core-seconds the machine spent busy between two readings of /proc/stat."""
    return (cpu_ticks(after)[0] - cpu_ticks(before)[0]) / hz


def commit_of(repo: Path) -> str:
    """REPO's HEAD, with "+dirty" when tracked files differ from it."""

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
        ).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def time_run(workdir: Path, overlays: list[Path], cores: str = "2", repo: Path = HERE.parent) -> dict:
    """Run REPO's workflow from nothing in WORKDIR (config.yaml copied in, OVERLAYS after it) and time it:
    what run_time.json holds (wall, busy core-seconds, the jobs Snakemake counted, the machine's bf16 flags and
    load before the start). Raises SystemExit when WORKDIR is not empty or an overlay is missing."""
    sys.path[:0] = [str(HERE.parent)]
    from tst.device import CPU_BF16_FLAGS, cpu_flags

    repo, workdir = repo.resolve(), workdir.resolve()
    if workdir.exists() and any(workdir.iterdir()):
        sys.exit(f"{workdir} is not empty: give a new folder (the run is timed from nothing)")
    overlays = [p.resolve() for p in overlays]
    for p in overlays:
        if not p.is_file():
            sys.exit(f"--configfile {p}: no such file")
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy2(repo / "config.yaml", workdir / "config.yaml")
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    cmd = [snakemake, "-s", str(repo / "Snakefile"), "--cores", str(cores)]
    cmd += ["--configfile", "config.yaml", *map(str, overlays)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")])),
    }
    hz = os.sysconf("SC_CLK_TCK")
    load = os.getloadavg()[0]
    stat0, t0 = Path("/proc/stat").read_text(), time.perf_counter()
    with open(workdir / "run.log", "w") as log:
        rc = subprocess.run(
            cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, check=False
        ).returncode
    wall, stat1 = time.perf_counter() - t0, Path("/proc/stat").read_text()
    result = {
        "commit": commit_of(repo),
        "configfiles": [
            "config.yaml",
            *(str(p.relative_to(repo)) if p.is_relative_to(repo) else p.name for p in overlays),
        ],
        "cores": str(cores),
        "returncode": rc,
        "wall_s": round(wall, 1),
        "busy_core_s": round(busy_core_seconds(stat0, stat1, hz), 1),
        "jobs": jobs_done((workdir / "run.log").read_text(errors="replace")),
        "cpus": os.cpu_count(),
        "bf16_flags": sorted(cpu_flags() & set(CPU_BF16_FLAGS)),
        "load_1min_before": load,
    }
    (workdir / "run_time.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def jobs_done(log_text: str) -> int | None:
    """The jobs Snakemake ran, from its last "N of M steps (100%) done" line (None: none)."""
    found = re.findall(r"^(\d+) of (\d+) steps \(100%\) done", log_text, flags=re.MULTILINE)
    return int(found[-1][1]) if found else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workdir", type=Path)
    ap.add_argument("--configfile", nargs="*", type=Path, default=[], help="overlays after REPO/config.yaml")
    ap.add_argument("--cores", default="2")
    ap.add_argument("--repo", type=Path, default=HERE.parent, help="the checkout whose workflow runs")
    args = ap.parse_args()
    sys.path[:0] = [str(HERE)]
    from stage_times import markdown_table, rule_table  # bench/stage_times.py

    result = time_run(args.workdir, args.configfile, args.cores, args.repo)
    print(json.dumps(result))
    if result["returncode"] != 0:
        sys.exit(f"snakemake failed (exit {result['returncode']}): {args.workdir.resolve() / 'run.log'}")
    print(markdown_table(rule_table(args.workdir.resolve())))


if __name__ == "__main__":
    main()
