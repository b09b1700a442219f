"""Issue 23's experiment, scored (docs/transfer_experiments.md section 4): does M2 keep more content than M0 at
the same Acc (Pang & Gimpel 2019, Table 2 and Fig. 1)?

After the models of configs/yelp_trajectories.yaml are trained (and their test transfers written), this scores
every checkpoint of every model on dev and test with the metrics the question needs (Acc, Sim, PP, self-BLEU,
distinct outputs), through tst.score.score_files as the score rules do; the sanity baselines that set the
calibrated GM's thresholds (tst.metrics.gm.calibrate: copy, random_target, fixed_target, shuffled, on test, with
the content score GM_CONTENT); and, for each Acc target, each seed's dev checkpoint closest to it
(tst.report.select.select_checkpoints, the tables' rule) with its test scores, GM_CONTENT included. It writes:

    OUT/scores/{system}/{split}.{ckpt}.json   the score files (skipped when present: the bench resumes)
    OUT/checkpoints.tsv                       every checkpoint: dev and test scores, losses.csv diagnostics
    OUT/table2.md                             P&G Table 2 rows per Acc target: mean ± sd over seeds, P&G's GM
                                              (gm_pg, score.gm_t) and the calibrated GM (gm)
    OUT/crossing.md                           per variant the dev Acc range of its mean trajectory and where
                                              M0's and each M2's overlap, with Sim interpolated at common Acc
    OUT/trajectories.{png,svg}                tst.report.plots.trajectory_figure on dev (and _test on test)

    python bench/trajectories.py --results results/yelp --out /tmp/trajectories --config-files \
        config.yaml configs/yelp.yaml configs/yelp_cpu.yaml configs/yelp_trajectories.yaml
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import yaml

from tst import layout, names
from tst.apply import merge_configs
from tst.metrics.gm import GM_CONTENT, calibrate
from tst.report import figure, plots
from tst.report.build import settings as report_settings
from tst.report.scores import load_scores, ours
from tst.report.select import select_checkpoints
from tst.score import score_files, score_meta
from tst.scoring import Evaluators
from tst.stages import calibration_baselines, score_options

CHEAP = ["acc", "sim", "pp_joint", "bleu_self_corpus", "distinct"]


def score_run(ev, root: Path, dataset: str, system: str, split: str, ckpt: str, only, out: Path, options):
    """One run's score file under OUT (kept when present and holding every key of `only`)."""
    path = out / "scores" / system / f"{split}.{ckpt}.json"
    if path.exists() and all(k in json.loads(path.read_text())["metrics"] for k in only):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rel = Path(layout.root(dataset))
    files = [
        (
            root / Path(layout.sources(dataset, system, split, ckpt, s)).relative_to(rel),
            root / Path(layout.outputs(dataset, system, split, ckpt, s)).relative_to(rel),
        )
        for s in layout.STYLES
    ]
    score_files(
        ev,
        [str(a) for a, _ in files],
        [str(b) for _, b in files],
        [0, 1],
        meta=score_meta(dataset, system, split, ckpt),
        options=options,
        only=only,
        json_out=path,
    )
    return path


def models(root: Path) -> list[tuple[str, int, Path]]:
    found = []
    for d in sorted((root / layout.MODELS).glob("*/seed*")):
        found.append((d.parent.name, int(d.name[len("seed") :]), d))
    return found


def checkpoints_of(model_dir: Path, split: str) -> list[str]:
    labels = {
        p.name.split(".", 1)[1].rsplit(".", 2)[0]
        for p in (model_dir / layout.TRANSFERS).glob(f"{split}.*.0.txt")
    }
    return sorted(labels, key=names.parse_checkpoint)


def mean_sd(x) -> str:
    x = np.asarray(x, dtype=float)
    return f"{x.mean():.3f} ± {x.std(ddof=1) if len(x) > 1 else 0.0:.3f}"


def crossing(dev: pd.DataFrame, variants: list[str]) -> list[str]:
    """Dev Acc range of each variant's mean trajectory (mean over seeds per checkpoint) and, for M0 against
    each other variant, the overlap with Sim linearly interpolated along each mean trajectory (by Acc, within
    the range only) at a few Acc values."""
    curves = {
        v: dev[dev["variant"] == v].groupby("epoch")[["acc", "sim"]].mean().sort_index() for v in variants
    }
    lines = ["| variant | dev Acc range (mean over seeds, per checkpoint) | Sim range |", "|---|---|---|"]
    for v, c in curves.items():
        lines.append(
            f"| {v} | {c['acc'].min():.3f} – {c['acc'].max():.3f} | {c['sim'].min():.3f} – {c['sim'].max():.3f} |"
        )
    base = variants[0]
    for v in variants[1:]:
        lo = max(curves[base]["acc"].min(), curves[v]["acc"].min())
        hi = min(curves[base]["acc"].max(), curves[v]["acc"].max())
        if lo >= hi:
            lines.append(f"\n{base} and {v}: no common dev Acc (ranges do not overlap).")
            continue
        lines.append(
            f"\n{base} and {v}: common dev Acc {lo:.3f} – {hi:.3f}. Sim at common Acc (every point of the"
        )
        lines.append(
            "mean trajectory where it crosses that Acc, linear between checkpoints; several values = it crosses more than once):"
        )
        lines.append(f"\n| Acc | {base} Sim | {v} Sim |\n|---|---|---|")
        for a in np.linspace(lo, hi, 5):
            lines.append(f"| {a:.3f} | {_sims_at(curves[base], a)} | {_sims_at(curves[v], a)} |")
    return lines


def _sims_at(c: pd.DataFrame, acc: float) -> str:
    x, y = c["acc"].to_numpy(), c["sim"].to_numpy()
    out = []
    for i in range(len(x) - 1):
        a0, a1 = x[i], x[i + 1]
        if min(a0, a1) <= acc <= max(a0, a1) and a0 != a1:
            out.append(y[i] + (acc - a0) / (a1 - a0) * (y[i + 1] - y[i]))
    return ", ".join(f"{s:.3f}" for s in out) or "—"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True, help="results/{dataset} of the run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--config-files", nargs="+", required=True)
    ap.add_argument("--targets", nargs="+", type=float, default=[0.7, 0.8, 0.9])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--score-only", nargs="+", default=None, help="only score these systems (e.g. M0.seed1), then stop"
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    root, out = Path(args.results), Path(args.out)
    dataset = root.name
    cfg = merge_configs([yaml.safe_load(Path(f).read_text()) for f in args.config_files])
    options = score_options(cfg, dataset)  # what the score rules pass
    report = report_settings(cfg.get("report"))  # target Acc and tolerance of the tables
    tolerance = float(report["tolerance"])
    gm_t = (cfg.get("score") or {}).get("gm_t")
    calibration_systems = calibration_baselines(cfg)
    found = {v for v, _, _ in models(root)}
    variants = [v for v in cfg["transfer"]["run_variants"] if v in found]
    ev = Evaluators(root / layout.EVALUATORS)
    t0 = time.perf_counter()

    paths = []
    for variant, seed, d in models(root):
        system = names.system_name(variant, seed)
        if args.score_only and system not in args.score_only:
            continue
        for split in ("dev", "test"):
            for ckpt in checkpoints_of(d, split):
                paths.append(score_run(ev, root, dataset, system, split, ckpt, CHEAP, out, options))
        print(f"{system}: scored, {time.perf_counter() - t0:.0f} s", flush=True)
    if args.score_only:
        return
    base_paths = {
        s: score_run(ev, root, dataset, s, "test", names.FINAL, CHEAP + [GM_CONTENT], out, options)
        for s in calibration_systems
    }
    calibration = calibrate(
        {s: json.loads(p.read_text())["metrics"] for s, p in base_paths.items()}, GM_CONTENT
    )
    print("calibration:", calibration["t"], calibration["from"], flush=True)

    frame, _ = load_scores(paths, gm_t, calibration)
    selected = []
    for target in args.targets:
        sel = select_checkpoints(frame, target, tolerance)
        for r in sel.itertuples():
            p = score_run(
                ev, root, dataset, r.system, "test", r.checkpoint, CHEAP + [GM_CONTENT], out, options
            )
            selected.append(
                (target, r.variant, int(r.seed), r.checkpoint, float(r.dev_acc), bool(r.within), p)
            )
    print(f"selected checkpoints scored, {time.perf_counter() - t0:.0f} s", flush=True)

    frame, info = load_scores(paths + list(base_paths.values()), gm_t, calibration)
    ours_f = ours(frame)
    dev = ours_f[ours_f["split"] == "dev"]
    test = ours_f[ours_f["split"] == "test"]

    # every checkpoint, with the trainer's diagnostics (losses.csv rows of the checkpoints)
    rows = []
    for variant, seed, d in models(root):
        with open(d / "losses.csv", newline="") as f:  # the checkpoint rows, in step order
            diag = [r for r in csv.DictReader(f) if r.get("dev_distinct")]
        epochs = sorted(set(dev[(dev.variant == variant) & (dev.seed == seed)]["epoch"]))
        if len(diag) != len(epochs):
            raise ValueError(f"{d}/losses.csv has {len(diag)} checkpoint rows for {len(epochs)} checkpoints")
        for e, r in zip(epochs, diag):
            dv = dev[(dev.variant == variant) & (dev.seed == seed) & (dev.epoch == e)].iloc[0]
            tv = test[(test.variant == variant) & (test.seed == seed) & (test.epoch == e)]
            tv = tv.iloc[0] if len(tv) else None
            step, distinct, z, lam = r["step"], r["dev_distinct"], r["z_probe"], r["lambda_cyc"]
            rows.append(
                {
                    "variant": variant,
                    "seed": seed,
                    "epoch": e,
                    "step": step,
                    "lambda_cyc": lam,
                    **{f"dev_{k}": dv[k] for k in CHEAP},
                    **{f"test_{k}": (tv[k] if tv is not None else np.nan) for k in CHEAP},
                    "dev_distinct_trainer": distinct,
                    "z_probe": z,
                }
            )
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "checkpoints.tsv", sep="\t", index=False, float_format="%.4f")

    # P&G Table 2 per target: test scores of each seed's selected checkpoint
    lines = []
    sel = pd.DataFrame(
        selected, columns=["target", "variant", "seed", "checkpoint", "dev_acc", "within", "path"]
    )
    keys = ["acc", "sim", "pp_joint", "bleu_self_corpus", GM_CONTENT, "gm_pg", "gm"]
    for target in args.targets:
        lines += [
            f"\n### Acc target {target:g} (each seed's dev checkpoint closest to it, ± {tolerance:g})\n",
            "| Model | " + " | ".join(keys) + " | checkpoints (dev Acc) |",
            "|---|" + "---:|" * len(keys) + "---|",
        ]
        for v in variants:
            s = sel[(sel.target == target) & (sel.variant == v)].sort_values("seed")
            vals = []
            for r in s.itertuples():
                row = test[
                    (test.system == names.system_name(v, r.seed)) & (test.checkpoint == r.checkpoint)
                ].iloc[0]
                vals.append(row)
            cells = [mean_sd([x[k] for x in vals]) for k in keys]
            mark = "" if s["within"].all() else " †"
            shown = ", ".join(f"{r.checkpoint} ({r.dev_acc:.3f})" for r in s.itertuples())
            lines.append(f"| {v}{mark} | " + " | ".join(cells) + f" | {shown} |")
    lines.append(
        f"\n† some seed's closest checkpoint is more than {tolerance:g} from the target. Calibrated GM "
        f"thresholds t = {[round(x, 3) for x in calibration['t']]} from {calibration['from']}; P&G's gm_t = {gm_t}."
    )
    lines.append(
        "\nBaselines (test): "
        + "; ".join(
            f"{s} Acc {frame[frame.system == s]['acc'].iloc[0]:.3f}, Sim {frame[frame.system == s]['sim'].iloc[0]:.3f}, "
            f"PP {frame[frame.system == s]['pp_joint'].iloc[0]:.1f}, {GM_CONTENT} {frame[frame.system == s][GM_CONTENT].iloc[0]:.3f}"
            for s in calibration_systems
        )
    )
    (out / "table2.md").write_text("\n".join(lines) + "\n")
    (out / "crossing.md").write_text("\n".join(crossing(dev, variants)) + "\n")

    colors = figure.variant_colors(variants)
    for split, stem in (("dev", "trajectories"), ("test", "trajectories_test")):
        fig = plots.trajectory_figure(
            frame, info, colors, variants, split=split, target_acc=report["target_acc"]
        )
        figure.save_figure(fig, out / stem)
    print((out / "table2.md").read_text())
    print((out / "crossing.md").read_text())
    print(f"done, {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
