"""Per-rule wall times of a workflow run, from Snakemake's benchmark files and its log.

python bench/stage_times.py WORKDIR [--log .snakemake/log/RUN.snakemake.log] [--out FILE.md]
WORKDIR: the folder snakemake ran in (benchmarks/<rule>/... .tsv, one file per job). Prints a Markdown table:
per rule the jobs, their summed and longest wall seconds, CPU seconds and peak RSS; then the run's wall time from
the first to the last timestamp of the Snakemake log (the newest log when --log is not given) and the critical
path through the language models (train_lm and what waits on lm_joint) as the log's start and end times show it.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pandas as pd

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]")


def rule_table(workdir: Path) -> pd.DataFrame:
    rows = defaultdict(lambda: {"jobs": 0, "wall_s": 0.0, "max_wall_s": 0.0, "cpu_s": 0.0, "max_rss_mb": 0.0})
    for tsv in sorted((workdir / "benchmarks").rglob("*.tsv")):
        rule = tsv.relative_to(workdir / "benchmarks").parts[0]
        b = pd.read_csv(tsv, sep="\t").iloc[-1]
        r = rows[rule]
        r["jobs"] += 1
        r["wall_s"] += float(b["s"])
        r["max_wall_s"] = max(r["max_wall_s"], float(b["s"]))
        r["cpu_s"] += float(b["cpu_time"]) if b["cpu_time"] != "-" else 0.0
        r["max_rss_mb"] = max(r["max_rss_mb"], float(b["max_rss"]) if b["max_rss"] != "-" else 0.0)
    frame = pd.DataFrame.from_dict(rows, orient="index").sort_values("wall_s", ascending=False)
    return frame.round(1)


def markdown_table(table: pd.DataFrame) -> str:
    """rule_table as Markdown, with a total row."""
    lines = [
        "| rule | jobs | wall s (sum) | wall s (longest job) | CPU s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for rule, r in table.iterrows():
        lines.append(
            f"| {rule} | {int(r.jobs)} | {r.wall_s:,.1f} | {r.max_wall_s:,.1f} | {r.cpu_s:,.1f} | {r.max_rss_mb:,.0f} |"
        )
    lines.append(
        f"| **all** | {int(table.jobs.sum())} | {table.wall_s.sum():,.1f} | | {table.cpu_s.sum():,.1f} | "
        f"{table.max_rss_mb.max():,.0f} |"
    )
    return "\n".join(lines)


def log_span(log: Path) -> tuple[datetime, datetime]:
    stamps = [
        datetime.strptime(" ".join(m[1].split()), "%a %b %d %H:%M:%S %Y")
        for line in log.read_text().splitlines()
        if (m := STAMP.match(line))
    ]
    return min(stamps), max(stamps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workdir", type=Path)
    ap.add_argument("--log", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    lines = [markdown_table(rule_table(args.workdir))]
    log = args.log or max((args.workdir / ".snakemake" / "log").glob("*.snakemake.log"), key=lambda p: p.name)
    start, end = log_span(log)
    lines.append(
        f"\nRun wall time (first to last timestamp of {log.name}): {(end - start).total_seconds():,.0f} s"
    )
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
