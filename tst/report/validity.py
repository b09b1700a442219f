"""The validity tables: can each metric's verdict be trusted on this dataset (tst.validity, tst.baselines)?

- validity_table: per metric, each sanity baseline's score and whether it ranks below every honest system
  (published systems, the human references, our models at their selected checkpoint); ✗ flags a metric that
  ranks a baseline at or above some honest system, naming it;
- separation_table: per content metric, mean over true pairs vs shuffled pairs, and the AUC;
- word_order_table: per honest system, both GMs of its outputs as they are, with adjacent swaps, shuffled.
"""

from __future__ import annotations

import math

import pandas as pd

from tst import baselines as bl
from tst.metrics.registry import METRICS, add_derived
from tst.report.scores import LABELS, MetricInfo, digits, external
from tst.report.table_writer import Table, fmt
from tst.report.tables import _header, _ours_summary, definitions

_GMS = ("gm", "gm_pg")
BASELINES_NOTE = (
    "Baselines (no training): source = the copy baseline, the source unchanged; random_target = a random target-style "
    "training sentence; nearest_target = the target-style training sentence nearest to the source (idf-GloVe "
    "vector of Sim); fixed_target = the most generic target-style training sentence (5+ tokens, the most frequent words) for every input; "
    "shuffled = the source's words in random order; empty = an empty line."
)


def _better(a: float, b: float, higher: bool) -> bool:
    return a > b if higher else a < b


def honest_rows(
    frame: pd.DataFrame, honest: list[str], target_acc: float, tolerance: float, keys: list[str]
) -> list[dict]:
    """The honest systems' test scores: the named external systems as scored, and each of our variants at the
    dev checkpoint closest to target_acc (mean over seeds, as in the Pang & Gimpel table)."""
    ext = external(frame)
    ext = ext[(ext["split"] == "test") & ext["system"].isin(honest)]
    rows = [{"system": r["system"], **{k: r.get(k) for k in keys}} for r in ext.to_dict("records")]
    summary, _ = _ours_summary(
        frame, target_acc, tolerance, keys, sorted(set(frame["variant"].dropna())), "acc"
    )
    return rows + [{"system": r["variant"], **{k: r.get(k) for k in keys}} for r in summary]


def validity_table(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    honest: list[str],
    target_acc: float,
    tolerance: float,
    name: str = "validity",
    human: dict | None = None,
) -> Table:
    """A row per metric: each baseline's test score with ✓ (worse than every honest system) or ✗ (at or above
    at least one, named in the CSV's `not_below` column and in the notes)."""
    keys = [k for k in info if k in METRICS]
    ext = external(frame)
    ext = ext[ext["split"] == "test"]
    present = [b for b in bl.BASELINES if b in set(ext["system"])]
    honest_r = honest_rows(frame, honest, target_acc, tolerance, keys)
    table = Table(
        name,
        "Sanity baselines under every metric: ✓ = ranked below every honest system (published systems, the "
        "human references, our models at their selected checkpoint); ✗ = at or above at least one.",
        pd.DataFrame(),
        ["Metric", *[bl.label(b) for b in present], "worst honest system"],
    )
    records, flags = [], []
    for k in keys:
        higher = info[k].higher_is_better
        vals = [(r["system"], r[k]) for r in honest_r if r.get(k) is not None and not math.isnan(r[k])]
        if not vals:
            continue
        worst_sys, worst = min(vals, key=lambda x: x[1]) if higher else max(vals, key=lambda x: x[1])
        cells = [_header(info, k)]
        for b in present:
            v = ext[ext["system"] == b][k].iloc[0] if k in ext.columns else float("nan")
            if v is None or math.isnan(v):
                cells.append("–")
                continue
            beaten = [s for s, x in vals if not _better(x, v, higher)]
            ok = not beaten
            records.append(
                {
                    "metric": k,
                    "baseline": b,
                    "score": float(v),
                    "below_every_honest": ok,
                    "worst_honest": worst_sys,
                    "worst_honest_score": float(worst),
                    "not_below": ";".join(beaten),
                }
            )
            cells.append(f"{fmt(v, digits(k))} {'✓' if ok else '✗'}")
            if not ok and k in _GMS:  # the aggregates' flags in full; the others in the CSV's not_below
                flags.append(f"{_header(info, k)}: {bl.label(b)} is not below {', '.join(beaten)}.")
        cells.append(f"{worst_sys} ({fmt(worst, digits(k))})")
        table.rows.append(cells)
    table.data = pd.DataFrame(
        records,
        columns=[
            "metric",
            "baseline",
            "score",
            "below_every_honest",
            "worst_honest",
            "worst_honest_score",
            "not_below",
        ],
    )
    fooled = {
        b: [_header(info, r["metric"]) for r in records if r["baseline"] == b and not r["below_every_honest"]]
        for b in present
    }
    table.notes = [
        f"Honest systems: {', '.join(r['system'] for r in honest_r)}.",
        BASELINES_NOTE,
        *(f"Fooled by {bl.label(b)} (✗): {', '.join(m)}." for b, m in fooled.items() if m),
        "✗: the CSV's not_below column names the honest systems the baseline is not below.",
        *flags,
        *_human_notes(human),
        *definitions(info, [k for k in keys if k in _GMS]),
    ]
    if not present or not honest_r:
        table.empty = "No sanity baselines or no honest systems in these score files."
    return table


def gm_vs_human(frame: pd.DataFrame, rated) -> dict | None:
    """Each GM's system-level Spearman with the human ratings over the rated systems: per system its test GM
    and the mean over its rated rewrites of the overall human score (tst.human.ratings.overall_score: the
    mean of grammaticality, sentiment and topic). None without ratings."""
    from pathlib import Path

    from scipy import stats

    from tst.human.ratings import system_means

    if not rated or not Path(rated).exists():
        return None
    human = system_means(pd.read_csv(rated, sep="\t"))["overall"]
    ext = external(frame)
    ext = ext[ext["split"] == "test"].set_index("system")
    out = {"n_systems": 0, "systems": sorted(set(human.index) & set(ext.index))}
    for key in _GMS:
        if key not in ext.columns:
            continue
        both = pd.DataFrame({"gm": ext[key], "human": human}).dropna()
        out["n_systems"] = len(both)
        if len(both) >= 3:
            out[key] = float(stats.spearmanr(both["gm"], both["human"]).statistic)
    return out


def _human_notes(human: dict | None) -> list[str]:
    if not human or not any(k in human for k in _GMS):
        return []
    parts = [f"{LABELS.get(k, k)} ρ = {human[k]:.3f}" for k in _GMS if k in human]
    return [
        (
            f"Agreement with people: system-level Spearman of each GM with the mean human rating (grammaticality, "
            f"sentiment, topic) over {human['n_systems']} rated systems ({', '.join(human['systems'])}): "
            f"{'; '.join(parts)}."
        )
    ]


def separation_table(checks: dict | None, name: str = "content_separation") -> Table:
    """Per content metric: mean over true pairs, over shuffled pairs, and the AUC of telling them apart."""
    cols = ["metric", "mean_true", "mean_shuffled", "gap", "auc", "n_true", "n_shuffled", "variant"]
    table = Table(
        name,
        "Content separation: each content metric on true pairs (a human rewrite and its own source) and on "
        "shuffled pairs (the rewrite and another source); AUC = P(true pair scores better) + ½ P(tie).",
        pd.DataFrame(columns=cols),
        ["Metric", "true pairs", "shuffled pairs", "gap ↑", "AUC ↑"],
    )
    sep = (checks or {}).get("separation")
    if not sep or not sep.get("metrics"):
        table.empty = "No human references for this dataset: content separation not measured."
        return table
    records = []
    for key, r in sep["metrics"].items():
        d = digits(key)
        records.append({"metric": key, **{c: r.get(c) for c in cols if c != "metric"}})
        arrow = "↑" if r["higher_is_better"] else "↓"
        table.rows.append(
            [
                f"{LABELS.get(key, key)} {arrow}",
                fmt(r["mean_true"], d),
                fmt(r["mean_shuffled"], d),
                fmt(r["gap"], d),
                fmt(r["auc"], 3),
            ]
        )
    table.data = pd.DataFrame(records, columns=cols)
    table.notes = [f"{sep['n_pairs']} pairs; {sep['pairs']}."] + [
        f"{LABELS.get(k, k)}: not measured ({why})." for k, why in (sep.get("skipped") or {}).items()
    ]
    return table


def _damage_cell(rec: dict, key: str, kind: str) -> str:
    v, base = rec[f"{key}_{kind}"], rec[key]
    if v is None or base is None:
        return fmt(v, 2)
    return f"{fmt(v, 2)} {'✓' if v < base else '✗'}"


def metrics_by_system(score_paths) -> dict[str, dict]:
    """system -> the corpus metrics of its score file (a score JSON's `metrics`), for the given score files."""
    from tst.io import read_json

    return {d["system"]: d["metrics"] for d in map(read_json, score_paths)}


def word_order_table(
    checks: dict | None,
    gm_t=None,
    calibration: dict | None = None,
    originals: dict | None = None,
    name: str = "word_order",
) -> Table:
    """Per honest system: GM (calibrated) and GM-P&G of its outputs as they are (originals: system -> its score
    file's metrics, metrics_by_system), with adjacent swaps and shuffled (checks["word_order"], tst.validity);
    ✓ = the damaged copy scores below the system."""
    cols = ["system", "gm", "gm_swap", "gm_shuffle", "gm_pg", "gm_pg_swap", "gm_pg_shuffle", "pp", "pp_swap"]
    table = Table(
        name,
        "Word-order damage: an aggregate must score a system's outputs with adjacent words swapped, or shuffled, "
        "below the outputs as they are.",
        pd.DataFrame(columns=cols),
        ["System", "GM", "GM swapped", "GM shuffled", "GM-P&G", "GM-P&G swapped", "GM-P&G shuffled"],
    )
    wo = (checks or {}).get("word_order")
    if not wo or not wo.get("systems"):
        table.empty = "No honest systems to damage."
        return table
    records = []
    for system, damaged in wo["systems"].items():
        row = {"original": (originals or {}).get(system) or {}, **damaged}
        g = {kind: add_derived(m, gm_t, calibration) for kind, m in row.items()}
        rec = {"system": system}
        for key in _GMS:
            for kind in ("original", "swap", "shuffle"):
                col = key if kind == "original" else f"{key}_{kind}"
                rec[col] = (g[kind].get(key) or {}).get("score")
        rec["pp"], rec["pp_swap"] = (
            (row[k].get("pp_joint") or {}).get("score") for k in ("original", "swap")
        )
        records.append(rec)
        table.rows.append(
            [system]
            + [
                x
                for key in _GMS
                for x in (fmt(rec[key], 2), _damage_cell(rec, key, "swap"), _damage_cell(rec, key, "shuffle"))
            ]
        )
    table.data = pd.DataFrame(records, columns=cols)
    table.notes = [
        (
            f"swapped: {wo['swaps_per_line']} swaps of two adjacent words per output; shuffled: the words in "
            f"random order (seed {wo['seed']}). ✓ = below the system as it is, ✗ = not below."
        )
    ]
    return table
