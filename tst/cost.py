"""What a config costs to train: the transfer models it trains (datasets x variants x seeds), the updates each
takes (epochs x updates per epoch, from the training corpus's size), and at measured rates the GPU-hours and
CPU-hours (`tst cost`, tst.cli.cost).

The rates are a measured table, never a guess: the JSON bench/gpu_check.py writes (--rates; bench/gpu_share.py:
per variant and number of trainings at once on one device, the aggregate updates/s and each training's), on a
GPU or, with --device cpu, on a CPU. A variant is costed at its own measured rate (the measured row with its
model and every lambda), else at the rate of the fastest measured variant of its model whose loss terms include
all of its terms (an upper bound on its cost: every extra term only adds work), else not at all (its hours are
left out of the total and the output says so).

- GPU table, k = jobs_per_gpu trainings per GPU: GPU-hours = updates / (the aggregate rate of k trainings) /
  3600, the GPU's time they take; CPU-hours = updates / (one training's rate among k) x its threads / 3600,
  the cores each job holds while it runs.
- CPU table: GPU-hours 0; CPU-hours = updates / (one training's rate among k) x its threads / 3600.

Only the training updates are counted: the dev transfers and checkpoints the trainer writes every
checkpoint (every half epoch by default) and the evaluators, test transfers and scoring are not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from tst import layout, stages
from tst.data.sources import file_specs, style_path
from tst.data.splits import SPLIT_DEFAULTS
from tst.layout import STYLES
from tst.train.batching import steps_per_epoch
from tst.variants import resolve

# the training settings that set an update's work besides the loss terms: the rates hold for these only
SIZE_KEYS = ("emb_dim", "style_dim", "content_dim", "disc_widths", "disc_filters", "batch_size")
# the loss terms whose weight decides the work of an update (lambda_rec and lambda_adv are in every variant)
TERMS = ("lambda_para", "lambda_cyc", "lambda_lm", "lambda_adv2", "lambda_attr")


def count_lines(path: str | Path) -> int:
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def train_sizes(config: dict, dataset: str, root: str | Path = ".", data_dir=None) -> tuple[list[int], str]:
    """Training sentences per style of `dataset` and where the numbers come from: the prepared training files
    under `root` (layout.text) when they exist; else, for a `files` corpus, the lines of its configured train
    files in `data_dir` (before filtering, length limits and the leakage check: at most that many); for the
    demo corpus, its sentences_per_style less the dev and test shares (tst.data.splits: at most that many).
    Where from: "prepared", "raw files, at most" or "demo size, at most". ValueError when none can be had."""
    prepared = [Path(root) / layout.text(dataset, "train", s) for s in STYLES]
    if all(p.is_file() for p in prepared):
        return [count_lines(p) for p in prepared], "prepared"
    ds = (config.get("datasets") or {})[dataset]
    source = ds.get("source") or {}
    if source.get("kind") == "demo":
        n = int(source["sentences_per_style"])
        sc = ds.get("splits") or {}
        fractions = [float(sc.get(k, SPLIT_DEFAULTS[k])) for k in ("test_fraction", "dev_fraction")]
        train = n - sum(round(n * f) for f in fractions)
        return [train, train], "demo size, at most"
    specs = file_specs(ds, "train")
    if data_dir is not None and specs and all(isinstance(s, str) for s in specs):
        files = [[Path(data_dir) / style_path(s, t, ds["styles"]) for s in specs] for t in (0, 1)]
        if all(p.is_file() for per in files for p in per):
            return [sum(count_lines(p) for p in per) for per in files], "raw files, at most"
    raise ValueError(
        f"dataset {dataset}: no prepared training files ({prepared[0]}, ...) and no raw train files to count; "
        f"prepare the data first (snakemake {prepared[0]} {prepared[1]}) or pass --train-sizes {dataset}=N0,N1"
    )


def terms(settings: dict) -> frozenset[str]:
    return frozenset(t for t in TERMS if float(settings.get(t, 0)) > 0)


@dataclass
class Rate:
    """A measured rate for k trainings at once: the aggregate and one training's updates/s, and whose."""

    aggregate: float
    per_training: float
    measured: str  # the measured variant's name
    exact: bool  # measured with this variant's model and lambdas (else an upper bound on the cost)


@dataclass
class Rates:
    """A rates table (bench/gpu_check.py --rates) read for k trainings at once, with or without MPS."""

    device: str  # "cuda" | "cpu"
    threads: int  # CPU threads of each training (0: torch's default, counted as 1)
    rows: list[dict] = field(default_factory=list)
    batch: int | None = None
    dims: str | None = None
    sizes: dict = field(default_factory=dict)  # SIZE_KEYS as measured

    @classmethod
    def load(cls, path, jobs: int, mps: bool = False) -> Rates:
        """The rows of `jobs` trainings at once (with MPS when `mps`) of the table in `path`; ValueError when
        it holds none."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        device = str(data["device"]["device"]).split(":")[0]
        rows = [r for r in data["rows"] if r["jobs"] == jobs and bool(r["mps"]) == mps and "error" not in r]
        if not rows:
            counts = sorted({r["jobs"] for r in data["rows"] if "error" not in r and bool(r["mps"]) == mps})
            raise ValueError(
                f"{path}: no rate measured for {jobs} trainings at once{' under MPS' if mps else ''} "
                f"(measured: {', '.join(map(str, counts)) or 'none'}); run bench/gpu_check.sh --concurrency {jobs}"
            )
        threads = int(data.get("threads_per_training") or 1)
        return cls(device, threads, rows, data.get("batch"), data.get("dims"), data.get("sizes") or {})

    def rate(self, variant: dict) -> Rate | None:
        """The rate of a resolved variant: its own measured row, else the fastest measured row of its model
        whose terms include all of its terms, else None."""
        want = resolve(variant)
        lambdas = {k: float(v) for k, v in want.items() if k.startswith("lambda_")}
        for r in self.rows:
            s = r["settings"]
            if s["model"] == want["model"] and {k: float(s.get(k, 0)) for k in lambdas} == lambdas:
                return Rate(r["updates_per_s"], mean(r["per_training_updates_per_s"]), r["variant"], True)
        covering = [
            r
            for r in self.rows
            if r["settings"]["model"] == want["model"] and terms(r["settings"]) >= terms(want)
        ]
        if not covering:
            return None
        r = max(covering, key=lambda r: r["updates_per_s"])
        return Rate(r["updates_per_s"], mean(r["per_training_updates_per_s"]), r["variant"], False)


def list_of(value):
    """A setting compared as JSON holds it (a tuple and a list of the same values are the same)."""
    return list(value) if isinstance(value, (list, tuple)) else value


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


@dataclass
class Row:
    """The cost of training one variant on one dataset, every seed."""

    dataset: str
    variant: str
    trainings: int
    sizes: list[int]
    sizes_from: str
    epochs: int
    batch: int
    updates_per_training: int
    rate: Rate | None
    gpu_hours: float | None
    cpu_hours: float | None
    settings: dict = field(default_factory=dict)  # SIZE_KEYS as the config trains this variant

    @property
    def updates(self) -> int:
        return self.trainings * self.updates_per_training


def transfer_costs(config: dict, rates: Rates, sizes: dict, root=".", data_dir=None) -> list[Row]:
    """One Row per (trained dataset, run variant) of the config (tst.stages.our_models), its updates from the
    training corpus's size (`sizes`: {dataset: [n0, n1]} given, else train_sizes) and the variant's epochs and
    batch size (transfer settings, with the variant's own over them) at the rates."""
    from tst.train.trainer import with_defaults

    rows = []
    table = stages.lookup_tables(config)["variants"]
    for dataset in stages.trained_datasets(config):
        if dataset in sizes:
            n, source = list(sizes[dataset]), "given"
        else:
            n, source = train_sizes(config, dataset, root, data_dir)
        models = stages.our_models(config, dataset)
        for variant in dict.fromkeys(v for v, _ in models):
            seeds = sum(1 for v, _ in models if v == variant)
            cfg = with_defaults(stages.transfer_settings(config, table[variant]))
            per = cfg["epochs"] * steps_per_epoch(n[0], n[1], cfg["batch_size"])
            rate = rates.rate(table[variant])
            gpu = cpu = None
            if rate is not None:
                wall_s = seeds * per / rate.per_training  # each training's own time, added up
                cpu = wall_s * max(rates.threads, 1) / 3600
                gpu = seeds * per / rate.aggregate / 3600 if rates.device == "cuda" else 0.0
            size = {k: cfg[k] for k in SIZE_KEYS}
            rows.append(
                Row(
                    dataset,
                    variant,
                    seeds,
                    n,
                    source,
                    cfg["epochs"],
                    cfg["batch_size"],
                    per,
                    rate,
                    gpu,
                    cpu,
                    size,
                )
            )
    return rows


def hours(h: float) -> str:
    """Hours to read: 3 significant digits below 10 (0.00267, 2.5), else one decimal (1,234.5)."""
    return f"{h:,.1f}" if h >= 10 else f"{h:.3g}"


def report(rows: list[Row], rates: Rates, jobs: int, rates_path: str) -> list[str]:
    """The rows as a Markdown table with the totals and what the estimate leaves out."""
    where = "GPU" if rates.device == "cuda" else "CPU"
    head = (
        f"rule train_transfer: rates of {rates_path} ({where}, {rates.dims} dimensions at batch {rates.batch}, "
        f"{jobs} training(s) at once{' per GPU' if where == 'GPU' else ''}, {max(rates.threads, 1)} CPU "
        "thread(s) each)"
    )
    columns = (
        "| dataset | variant | trainings | train sentences | epochs x updates/epoch | updates | updates/s "
        "per training | GPU-hours | CPU-hours |"
    )
    lines = [
        head,
        "",
        columns,
        "|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r.rate is None:
            speed, gpu, cpu = "not measured", "", ""
        else:
            speed = f"{r.rate.per_training:.2f}" + (
                "" if r.rate.exact else f" ({r.rate.measured}'s: at most)"
            )
            gpu, cpu = hours(r.gpu_hours), hours(r.cpu_hours)
        lines.append(
            f"| {r.dataset} | {r.variant} | {r.trainings} | {r.sizes[0]:,} / {r.sizes[1]:,} ({r.sizes_from}) | "
            f"{r.epochs} x {r.updates_per_training // r.epochs:,} | {r.updates:,} | {speed} | {gpu} | {cpu} |"
        )
    costed = [r for r in rows if r.rate is not None]
    lines.append(
        f"| total | | {sum(r.trainings for r in rows)} | | | {sum(r.updates for r in rows):,} | | "
        f"{hours(sum(r.gpu_hours for r in costed))} | {hours(sum(r.cpu_hours for r in costed))} |"
    )
    lines.append("")
    missing = sorted({r.variant for r in rows if r.rate is None})
    if missing:
        lines.append(
            f"Not in the totals: {', '.join(missing)} (no measured variant of its model has all its loss terms)."
        )
    if any(r.rate is not None and not r.rate.exact for r in rows):
        lines.append(
            "X's: at most: costed at the rate of X, measured with every loss term of the variant and more "
            "(an upper bound on its hours)."
        )
    differ = sorted(
        {
            k
            for r in rows
            for k in SIZE_KEYS
            if k in rates.sizes and list_of(rates.sizes[k]) != list_of(r.settings[k])
        }
    )
    if differ:
        lines.append(
            f"WARNING: the rates were measured with other model sizes ({rates.dims} dimensions: "
            + ", ".join(f"{k} {rates.sizes[k]}" for k in differ)
            + f") than the config trains ({', '.join(f'{k} {rows[0].settings[k]}' for k in differ)}): the hours do not "
            "hold for it; measure with the config's sizes (bench/gpu_check.sh --dims paper or demo)."
        )
    lines.append(
        "Training updates only: the dev transfers and checkpoint at every checkpoint, the evaluators, the test "
        "transfers and the scoring are not counted."
    )
    return lines
