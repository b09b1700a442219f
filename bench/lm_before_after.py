"""What the PP language models of issue 28 changed in a finished run: the metric-vs-human table and each system's
PP, PP-target and GM, between a run with the LMs as they were before (configs/lm_full_softmax.yaml) and the same
run with the default LMs. Every other evaluator is the same file in both runs.

Make the "before" run from a finished offline-Yelp run (DIR, e.g. the evaluation stage of docs/evaluator_speed.md):
    cp -a DIR BEFORE && cd BEFORE
    snakemake --cores 2 --configfile configs/yelp.yaml OVERLAY... configs/lm_full_softmax.yaml
(the same config files as DIR's run, plus the overlay: Snakemake reruns the three LMs and what reads them), then
    python bench/lm_before_after.py BEFORE/results/yelp DIR/results/yelp
prints markdown: the table rows whose Spearman differs (sign changes and moves over 0.05 marked), every system's
scores, and the LMs' dev perplexities.
"""

import argparse
import csv
from pathlib import Path

import torch

from tst.io import read_json


def table(results: Path) -> dict:
    rows = csv.DictReader((results / "tables" / "metric_vs_human.csv").read_text().splitlines())
    return {(r["metric"], r["aspect"], r["level"]): float(r["spearman"]) for r in rows if r["spearman"]}


def leaderboard(results: Path) -> dict:
    return {
        r["system"]: r
        for r in csv.DictReader((results / "tables" / "leaderboard.csv").read_text().splitlines())
    }


def metrics(results: Path, system: str) -> dict:
    """metric name -> corpus score of a system's test outputs."""
    scores = read_json(results / "scores" / system / "test.final.json")["metrics"]
    return {name: m["score"] for name, m in scores.items()}


def dev_pp(results: Path, lm: str) -> str:
    ckpt = torch.load(results / "evaluators" / f"lm_{lm}.pt", map_location="cpu", weights_only=True)
    return f"{ckpt['metrics']['dev_perplexity']:.2f} ({ckpt['config']['model']['softmax']} softmax)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path, help="results/yelp of the run with configs/lm_full_softmax.yaml")
    ap.add_argument("after", type=Path, help="results/yelp of the run with the default LMs")
    a = ap.parse_args()
    tb, ta = table(a.before), table(a.after)
    print("| metric | aspect | level | Spearman before | after | change | |")
    print("|---|---|---|---:|---:|---:|---|")
    changed = [k for k in ta if k in tb and abs(ta[k] - tb[k]) > 1e-6]
    for key in changed:
        change = ta[key] - tb[key]
        sign = (ta[key] > 0) != (tb[key] > 0)
        mark = "sign changed" if sign else ("over 0.05" if abs(change) > 0.05 else "")
        print(f"| {' | '.join(key)} | {tb[key]:+.3f} | {ta[key]:+.3f} | {change:+.3f} | {mark} |")
    print(f"\n{sum(k in tb for k in ta) - len(changed)} of {len(ta)} rows unchanged.\n")
    lb, la = leaderboard(a.before), leaderboard(a.after)
    print(
        "| system | PP before | PP after | after / before | PP-target before | after | GM before | GM after |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for f in sorted((a.after / "scores").glob("*/test.final.json")):
        s = f.parent.name
        mb, ma = metrics(a.before, s), metrics(a.after, s)
        pb, pa, tb_, ta_ = mb["pp_joint"], ma["pp_joint"], mb["pp_target"], ma["pp_target"]
        gm = {
            k: f"{float(t[s]['gm']):.2f}" if t.get(s, {}).get("gm") else "-"
            for k, t in (("b", lb), ("a", la))
        }
        print(
            f"| {s} | {pb:.2f} | {pa:.2f} | {pa / pb:.3f} | {tb_:.2f} | {ta_:.2f} | {gm['b']} | {gm['a']} |"
        )
    print("\n| LM | dev PP before | after |\n|---|---|---|")
    for lm in ("joint", "style0", "style1"):
        print(f"| {lm} | {dev_pp(a.before, lm)} | {dev_pp(a.after, lm)} |")


if __name__ == "__main__":
    main()
