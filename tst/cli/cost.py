"""`tst cost`: what a config costs to train at measured rates (tst.cost)."""

from __future__ import annotations

import argparse

from tst import layout
from tst.cli.checks import check_files, fail

COST_HELP = """\
What a config costs to train: per trained dataset and run variant, the trainings (seeds), the updates (epochs x
updates per epoch, from the training corpus's size) and, at the rates measured by the GPU check (its JSON,
{rates}) or by the same measurement on a CPU, the GPU-hours and CPU-hours, with the
totals. The config files are merged as snakemake --configfile merges them. No rate is guessed: a variant
without a measured rate of its own is costed at a measured variant's that has all its loss terms (an upper
bound), or left out of the totals, and the output says which.

Without --rates: the GPU check's {rates} when it is there, else the CPU rates the clone ships ({cpu_rates}:
where, when and how they were measured is in the file, and printed).

example:
  tst cost                                # config.yaml at the shipped CPU rates
  bench/gpu_check.sh                      # on the GPU machine: writes {rates}
  tst cost --config config.yaml configs/yelp.yaml configs/paper_dimensions.yaml configs/paranmt.yaml \\
      configs/pg_table2.yaml --rates {rates}
"""


def add_cost(sub) -> None:
    p = sub.add_parser(
        "cost",
        help="the trainings, updates and GPU/CPU-hours a config takes at measured rates",
        description=COST_HELP.format(rates=layout.GPU_RATES, cpu_rates=layout.CPU_RATES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--config",
        "--configfile",
        nargs="+",
        default=["config.yaml"],
        help="config file(s), later ones overlaying earlier ones as with snakemake --configfile "
        "(default: config.yaml)",
    )
    p.add_argument(
        "--rates",
        default=None,
        help=f"the rates' JSON (bench/gpu_check.py --rates; default: {layout.GPU_RATES} under --root when the GPU "
        f"check wrote it, else the CPU rates the clone ships, {layout.CPU_RATES}, dated, measured on 2 CPU cores)",
    )
    p.add_argument(
        "--jobs-per-gpu",
        type=int,
        help="trainings at once per GPU (or on the CPU) whose rates to use (default: the config's jobs_per_gpu)",
    )
    p.add_argument("--mps", action="store_true", help="the rates measured under CUDA MPS")
    p.add_argument(
        "--train-sizes",
        nargs="+",
        default=[],
        metavar="DATASET=N0,N1",
        help="training sentences per style of a dataset (default: its prepared training files, else its raw "
        "train files or the demo's size)",
    )
    p.add_argument("--root", default=".", help=f"the folder holding {layout.RESULTS} (default: .)")
    p.set_defaults(func=run_cost)


def parse_sizes(items) -> dict:
    """DATASET=N0,N1 -> {DATASET: [N0, N1]}; ValueError naming the bad item."""
    out = {}
    for item in items:
        name, _, counts = item.partition("=")
        parts = counts.split(",")
        if not name or len(parts) != 2 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
            raise ValueError(
                f"--train-sizes {item}: write DATASET=N0,N1 (sentences per style, whole numbers)"
            )
        out[name] = [int(p) for p in parts]
    return out


def run_cost(args) -> None:
    import yaml

    from tst.config_files import read_configs
    from tst.cost import Rates, report, transfer_costs
    from tst.data.sources import resolve_data_dir
    from tst.defaults import default

    rates_path = args.rates or default_rates(args.root)
    check_files("cost", {"--config": args.config, "--rates": [rates_path]}, stdin=False)
    try:
        config = read_configs(args.config)
        jobs = args.jobs_per_gpu or int(config.get("jobs_per_gpu", default("jobs_per_gpu")))
        if jobs < 1:
            raise ValueError(f"--jobs-per-gpu {jobs}: at least 1")
        rates = Rates.load(rates_path, jobs, args.mps)
        data_dir = resolve_data_dir(config.get("data_dir"))
        rows = transfer_costs(config, rates, parse_sizes(args.train_sizes), args.root, data_dir)
    except (ValueError, KeyError, yaml.YAMLError) as e:
        fail("cost", str(e), 2)
    print("\n".join(report(rows, rates, jobs, rates_path)))
    note = rates_note(rates_path)
    if note:
        print(f"The rates: {note}")


def default_rates(root) -> str:
    """The rates tst cost reads without --rates: the GPU check's (layout.GPU_RATES under root) when it wrote
    them, else the dated CPU rates the clone ships (layout.CPU_RATES)."""
    from pathlib import Path

    from tst.data.sources import REPO

    measured = Path(root) / layout.GPU_RATES
    return str(measured if measured.is_file() else REPO / layout.CPU_RATES)


def rates_note(path) -> str | None:
    """The `note` a rates file carries (where, when and how the shipped rates were measured), or None."""
    import json
    from pathlib import Path

    try:
        return json.loads(Path(path).read_text(encoding="utf-8")).get("note")
    except (OSError, ValueError, AttributeError):
        return None
