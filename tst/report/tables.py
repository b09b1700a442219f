"""The papers' tables from score files. Each table is two things written by one writer
(tst.report.table_writer.write_table):
- `data`: a tidy frame, written as {name}.csv: one column per field, metric keys as column names (`acc`,
  `acc_sd`), flags in their own boolean columns; `pandas.read_csv` gives numbers as floats, counts as ints;
- a display (short headers with ↑/↓, cells as text, definitions as footnotes), written as {name}.md,
  {name}.tex (booktabs) and {name}.html (shown inside the Snakemake report).
A table that cannot have rows (e.g. no human ratings) says why in one line (`empty`).

- pang_gimpel_table: Pang & Gimpel Tables 2/3 (Model | Acc | Sim | PP | GM at a nearly fixed Acc)
- bleu_ref_table: Pang & Gimpel Table 6 (BLEU vs human references, one row per model x Acc target)
- side_by_side_table: Yu et al. Table 2 shape (every system x every metric)
- human_correlation_table: metric vs human ratings (sentence and system level)
- aggregation_table: agreement of GM (default / learned t) and the richer forms with human preferences
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from tst import baselines, names
from tst.report.contents import REFERENCE_SYSTEMS
from tst.report.scores import COVERAGE, LABELS, MetricInfo, digits, external, variant_order
from tst.report.select import mean_sd_over_seeds, select_checkpoints, selected_rows
from tst.report.table_writer import Table, fmt, fmt_mean_sd


def definitions(info: dict[str, MetricInfo], keys) -> list[str]:
    """Footnotes defining each metric column: short name, better direction, the exact variant."""
    return [f"{info[k].label} {info[k].arrow}: {info[k].variant}" for k in keys if k in info]


def _header(info: dict[str, MetricInfo], key: str) -> str:
    return f"{info[key].label} {info[key].arrow}" if key in info else LABELS.get(key, key)


def _ours_summary(
    frame: pd.DataFrame,
    target: float,
    tolerance: float,
    keys: list[str],
    order: list[str],
    acc_key: str,
    warmups: dict[str, float] | None = None,
) -> tuple[list[dict], list[str]]:
    """Per variant: test scores of each seed's dev checkpoint closest to `target`, mean and sd over seeds
    (tst.report.select), with `seeds`, `checkpoint` (per seed, seed order, ';'-joined), `dev_acc` (mean),
    `shown` (display text of the checkpoints), `off_target` and `before_cycle`: some seed's checkpoint lies in
    the variant's lambda_cyc warm-up (warmups: variant -> the epoch up to which lambda_cyc is 0,
    tst.stages.cycle_warmups). Also: selected checkpoints without test scores."""
    selection = select_checkpoints(frame, target, tolerance, acc_key)
    rows = selected_rows(frame, selection, "test")
    out = []
    for r in mean_sd_over_seeds(rows, keys, order).to_dict("records"):
        g = rows[rows["variant"] == r["variant"]].sort_values("seed")
        until = (warmups or {}).get(r["variant"])
        out.append(
            {
                **r,
                "seeds": int(r["n_seeds"]),
                "checkpoint": ";".join(str(c) for c in g["checkpoint"]),
                "dev_acc": float(g["dev_acc"].astype(float).mean()),
                "off_target": not r["within"],
                "before_cycle": until is not None and bool((g["epoch"].astype(float) <= until).any()),
                "shown": ", ".join(f"{c} ({a:.3f})" for c, a in zip(g["checkpoint"], g["dev_acc"])),
            }
        )
    missing = (
        sorted(
            set(selection["system"] + " " + selection["checkpoint"])
            - set(rows["system"] + " " + rows["checkpoint"])
        )
        if len(selection)
        else []
    )
    return out, missing


def _count(x) -> str:
    """A coverage count: an integer as it is, a mean over seeds with one decimal, blank when unknown."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _metric_columns(keys: list[str]) -> list[str]:
    return [c for k in keys for c in (k, f"{k}_sd")]


def _marks(r: dict) -> str:
    """The display marks of one of our rows: † off the target Acc, ‡ inside the lambda_cyc warm-up."""
    return (" †" if r.get("off_target") else "") + (" ‡" if r.get("before_cycle") else "")


def _warmup_note(records: list[dict], warmups: dict[str, float] | None) -> list[str]:
    hit = [r.get("variant") or r.get("model") for r in records if r.get("before_cycle")]
    if not hit:
        return []
    until = ", ".join(f"{v} ≤ ep{warmups[v]:g}" for v in dict.fromkeys(hit))
    return [
        (
            f"‡ at least one seed's selected checkpoint lies in the λ_cyc warm-up ({until}; ours, transfer.cyc_start), "
            "where λ_cyc is still 0: that model has not yet been trained with the cyclic loss (eq. 4), so the row "
            "is its variant without eq. 4 (for M2: M0, same seed)."
        )
    ]


# ---- Pang & Gimpel Tables 2/3 ---------------------------------------------------------------------


BESIDE_GM = ("distinct", "bleu_self_corpus")  # collapse diagnostics shown beside GM


def pang_gimpel_table(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    target_acc: float,
    tolerance: float,
    variants: list[str] | None = None,
    acc_key: str = "acc",
    sim_key: str = "sim",
    pp_key: str = "pp_joint",
    gm_key: str = "gm",
    name: str = "pang_gimpel",
    warmups: dict[str, float] | None = None,
) -> Table:
    """Pang & Gimpel Tables 2/3: Model | Acc | Sim | PP | GM | (GM-P&G) | distinct | self-BLEU | seeds |
    checkpoint. Per variant and seed the dev checkpoint whose Acc is closest to target_acc; its test scores,
    mean ± sd over seeds. distinct and self-BLEU (when scored) sit beside GM so a collapsed system shows at a
    glance. Every other metric is in the all-metrics table (side_by_side_table)."""
    keys = [acc_key, sim_key, pp_key, gm_key] + (["gm_pg"] if gm_key != "gm_pg" and "gm_pg" in info else [])
    keys += [k for k in BESIDE_GM if k in frame.columns and k in info]
    summary, missing = _ours_summary(
        frame, target_acc, tolerance, keys, variant_order(frame, variants), acc_key, warmups
    )
    cols = ["model", *_metric_columns(keys), "seeds", "checkpoint", "dev_acc", "off_target", "before_cycle"]
    data = pd.DataFrame(
        [{c: r.get(c) if c != "model" else r["variant"] for c in cols} for r in summary], columns=cols
    )
    acc = _header(info, acc_key).split(" ")[0]
    table = Table(
        name,
        f"Test scores at a nearly fixed {acc} (Pang & Gimpel 2019, Tables 2/3): mean ± sd over seeds.",
        data,
        ["Model"] + [_header(info, k) for k in keys] + ["seeds", "checkpoint"],
    )
    for r in summary:
        table.rows.append(
            [r["variant"] + _marks(r)]
            + [fmt_mean_sd(r[k], r[f"{k}_sd"], digits(k)) for k in keys]
            + [str(r["seeds"]), r["shown"]]
        )
    table.notes = definitions(info, keys) + [
        f"{LABELS.get(k, k)}: not in these score files." for k in keys if k not in info
    ]
    table.notes.append(
        f"checkpoint: per seed (in seed order) the checkpoint whose dev {acc} is closest to "
        f"{target_acc:g}, with that dev {acc}; the row holds its test scores."
    )
    if any(r["off_target"] for r in summary):
        table.notes.append(
            f"† no checkpoint of at least one seed came within ± {tolerance:g} of {acc} "
            f"{target_acc:g}: the row is not at the fixed {acc}."
        )
    table.notes += _warmup_note(summary, warmups)
    if missing:
        table.notes.append(f"Selected on dev but without test scores (left out): {', '.join(missing)}.")
    if not summary:
        table.empty = "No trained models in these score files."
    return table


# ---- Pang & Gimpel Table 6 ------------------------------------------------------------------------


def _external_order(systems) -> list[str]:
    """Published systems first (sorted), then the untransferred source, then the sanity baselines."""
    return sorted(s for s in systems if s not in baselines.BASELINES) + [
        s for s in baselines.BASELINES if s in systems
    ]


def _kind(system: str) -> str:
    """What an external system is, for the tables' `kind` column."""
    if system == "source":
        return "untransferred"
    if system in baselines.BUILT:
        return "baseline"
    return "references" if system in REFERENCE_SYSTEMS else "published"


def bleu_ref_table(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    acc_targets: list[float],
    tolerance: float,
    variants: list[str] | None = None,
    bleu_key: str = "bleu_ref_corpus",
    acc_key: str = "acc",
    name: str = "bleu_ref",
    warmups: dict[str, float] | None = None,
) -> Table:
    """Pang & Gimpel Table 6: BLEU against the human references and Acc on the same test sentences. Rows:
    the published systems, the untransferred input, then one row per model x Acc target (the dev checkpoint
    of each seed closest to the target; mean ± sd over seeds). The human references are not a row: they
    would be scored against themselves."""
    keys = [bleu_key, acc_key]
    cols = [
        "model",
        "kind",
        "target_acc",
        "seeds",
        "checkpoint",
        "dev_acc",
        "off_target",
        "before_cycle",
        *_metric_columns(keys),
    ]
    bleu, acc = _header(info, bleu_key), _header(info, acc_key)
    caption = (
        f"{bleu.split(' ')[0]} between the test outputs and the human references, {acc.split(' ')[0]} on "
        "the same sentences (Pang & Gimpel 2019, Table 6): our models at the dev checkpoints closest to "
        f"each target {acc.split(' ')[0]}."
    )
    table = Table(
        name,
        caption,
        pd.DataFrame(columns=cols),
        ["Model", "target Acc", "checkpoint (dev Acc)", "seeds", bleu, acc],
    )
    if bleu_key not in info:
        table.empty = f"No score file has {bleu_key}: this dataset has no human references."
        return table
    records = []
    ext = external(frame)
    ext = ext[(ext["split"] == "test") & ext[bleu_key].notna()]
    left_out = sorted(set(ext["system"]) & set(REFERENCE_SYSTEMS))
    for system in _external_order(set(ext["system"]) - set(REFERENCE_SYSTEMS)):
        for r in ext[ext["system"] == system].to_dict("records"):
            label = names.display_name(system)
            records.append(
                {
                    "model": label,
                    "kind": _kind(system),
                    "target_acc": float("nan"),
                    "seeds": 0,
                    "checkpoint": str(r["checkpoint"]),
                    "dev_acc": float("nan"),
                    "off_target": False,
                    "before_cycle": False,
                    **{k: r.get(k, float("nan")) for k in keys},
                    **{f"{k}_sd": float("nan") for k in keys},
                    "shown": str(r["checkpoint"]),
                }
            )
    order = variant_order(frame, variants)
    ours = []
    for t in acc_targets:
        summary, _ = _ours_summary(frame, t, tolerance, keys, order, acc_key, warmups)
        ours += [{**r, "model": r["variant"], "kind": "ours", "target_acc": float(t)} for r in summary]
    records += sorted(ours, key=lambda r: (order.index(r["model"]), r["target_acc"]))
    table.data = pd.DataFrame([{c: r.get(c) for c in cols} for r in records], columns=cols)
    for r in records:
        table.rows.append(
            [
                r["model"] + _marks(r),
                "" if r["kind"] != "ours" else f"{r['target_acc']:g}",
                r["shown"],
                str(r["seeds"]) if r["kind"] == "ours" else "",
                *(fmt_mean_sd(r[k], r[f"{k}_sd"], digits(k)) for k in keys),
            ]
        )
    table.notes = definitions(info, keys) + [
        (
            f"target Acc: per seed the dev checkpoint whose {acc.split(' ')[0]} is closest to it; the same "
            "checkpoint can be closest to two targets. seeds 0: an external system's outputs, scored once."
        )
    ]
    if any(r["off_target"] for r in records):
        table.notes.append(f"† some seed has no dev checkpoint within ± {tolerance:g} of the target.")
    table.notes += _warmup_note(records, warmups)
    if left_out:
        table.notes.append(
            f"Not a row: {', '.join(left_out)} (the human references, BLEU 100 against themselves)."
        )
    return table


# ---- Yu et al. Table 2 shape ----------------------------------------------------------------------


def side_by_side_table(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    target_acc: float,
    tolerance: float,
    variants: list[str] | None = None,
    acc_key: str = "acc",
    name: str = "metrics_all",
    warmups: dict[str, float] | None = None,
) -> Table:
    """Every system x every metric on the test split: external systems as scored, our variants at the
    checkpoint selected as in pang_gimpel_table (mean ± sd over seeds). CSV: a row per system; display:
    a row per metric, a column per system."""
    keys = list(info)
    counts = [k for k in COVERAGE if k in frame.columns and frame[k].notna().any()]
    cols = [
        "system",
        "kind",
        "seeds",
        "checkpoint",
        "off_target",
        "before_cycle",
        *_metric_columns(keys),
        *counts,
    ]
    records = []
    ext = external(frame)
    ext = ext[ext["split"] == "test"]
    for system in _external_order(set(ext["system"])):
        for r in ext[ext["system"] == system].to_dict("records"):
            records.append(
                {
                    "system": names.display_name(system),
                    "kind": _kind(system),
                    "seeds": 0,
                    "checkpoint": str(r["checkpoint"]),
                    "off_target": False,
                    "before_cycle": False,
                    **{k: r.get(k) for k in keys + counts},
                    **{f"{k}_sd": float("nan") for k in keys},
                }
            )
    summary, _ = _ours_summary(
        frame, target_acc, tolerance, keys + counts, variant_order(frame, variants), acc_key, warmups
    )
    records += [{**r, "system": r["variant"], "kind": "ours"} for r in summary]
    data = pd.DataFrame([{c: r.get(c) for c in cols} for r in records], columns=cols)
    systems = [r["system"] + _marks(r) + (" ◦" if r["kind"] == "baseline" else "") for r in records]
    table = Table(
        name,
        f"Every system under every metric on the test set (Yu et al. 2021, Table 2 shape); our "
        f"models at the dev checkpoint closest to Acc {target_acc:g}, mean ± sd over seeds.",
        data,
        ["Metric", *systems],
    )
    for k in keys:
        table.rows.append([_header(info, k)] + [fmt_mean_sd(r[k], r[f"{k}_sd"], digits(k)) for r in records])
    table.rows.append(["checkpoint"] + [r["checkpoint"] for r in records])
    for k in counts:
        table.rows.append([COVERAGE[k][0]] + [_count(r.get(k)) for r in records])
    table.notes = definitions(info, keys)
    if counts:
        table.notes.append(
            "Coverage rows (counts of the score files; ours: mean over seeds): empty outputs and outputs with no "
            "word a metric can use each take that metric's worst value; <unk> tokens are words a classifier or LM "
            "does not know; truncated and control-character lines were cut or read as empty; ref-BLEU is over the "
            "outputs with a reference."
        )
    refs = [r["system"] for r in records if r["kind"] == "references"]
    if refs:
        table.notes.append(
            f"{', '.join(refs)}: the human references; their reference-based scores (ref-BLEU) "
            "compare them with themselves."
        )
    if any(r["kind"] == "baseline" for r in records):
        table.notes.append(
            "◦ a sanity baseline (no training; the copy baseline is the untransferred source): a valid metric ranks it "
            "below every honest system (validity table)."
        )
    if any(r["off_target"] for r in records):
        table.notes.append(f"† not within ± {tolerance:g} of the target Acc for every seed.")
    table.notes += _warmup_note(summary, warmups)
    if not records:
        table.empty = "No test scores in these score files."
    return table


# ---- metric vs human ------------------------------------------------------------------------------

_CORR = {"spearman": "Spearman ρ", "pearson": "Pearson r", "kendall": "Kendall τ"}


def human_correlation_table(
    correlations: pd.DataFrame | None, info: dict[str, MetricInfo], name: str = "metric_vs_human"
) -> Table:
    """Correlation of each metric with the human rating of its aspect, sentence and system level.
    `correlations` has columns metric, aspect, level, n, spearman, pearson, kendall (others kept); it is the
    CSV as it is."""
    if correlations is None or correlations.empty:
        return Table(
            name,
            "Metric vs human ratings.",
            pd.DataFrame(columns=["metric", "aspect", "level", "n"]),
            [],
            empty="No human ratings for this dataset: nothing to correlate.",
        )
    cols = list(correlations.columns)
    header = [
        _CORR[c] if c in _CORR else f"{_CORR[c[:-2]]} p" if c.endswith("_p") and c[:-2] in _CORR else c
        for c in cols
    ]
    table = Table(
        name,
        "Correlation of each metric with the human ratings of its aspect; a metric whose "
        "lower values are better (↓) should correlate negatively.",
        correlations,
        header,
    )
    for r in correlations.to_dict("records"):
        row = []
        for c in cols:
            v = r[c]
            if c == "metric":
                row.append(_header(info, v) if v in info else LABELS.get(v, str(v)))
            elif c == "n":
                row.append("" if pd.isna(v) else str(int(v)))
            elif c.endswith("_p") and isinstance(v, float):
                row.append("" if math.isnan(v) else f"{v:.2g}")
            elif isinstance(v, float):
                row.append(fmt(v, 3))
            else:
                row.append(str(v))
        table.rows.append(row)
    table.notes = definitions(info, [k for k in info if k in set(correlations.get("metric", []))])
    return table


def read_correlations(path: str | Path | None) -> pd.DataFrame | None:
    return pd.read_csv(path) if path and Path(path).exists() else None


# ---- aggregation agreement ------------------------------------------------------------------------

_FORMS = {
    "default_gm": "the default GM (ours): sentence-level joint score",
    "default_t": "GM, default t (Pang & Gimpel eq. 1)",
    "learned_t": "GM, learned t",
    "learned_t_alpha": "GM, learned t and per-factor exponents α",
    "alpha": "GM with per-factor exponents α",
    "mlp": "MLP over Acc, Sim, PP",
}


def _compact(params: dict) -> str:
    """Short parameter text: numbers rounded to 3 significant digits; long lists and nested objects
    (e.g. an MLP's state_dict) left out."""
    parts = []
    for k, v in params.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            parts.append(f"{k}={v:.3g}")
        elif isinstance(v, list) and len(v) <= 8 and all(isinstance(x, (int, float)) for x in v):
            parts.append(f"{k}=(" + ", ".join(f"{x:.3g}" for x in v) + ")")
    return "; ".join(parts)


def aggregation_table(aggregate: dict | None, name: str = "aggregation") -> Table:
    """Share of human preference pairs each aggregate form orders like the humans. Forms are the entries
    of `aggregate` that hold an "agreement": a number (held-out) or {"train": x, "held_out": y}."""
    cols = ["form", "agreement_held_out", "agreement_train", "parameters"]
    table = Table(
        name,
        "Agreement of aggregate scores with human preference pairs (Pang & Gimpel 2019 report 86% for GM).",
        pd.DataFrame(columns=cols),
        ["Form", "agreement held-out ↑", "agreement train ↑", "parameters"],
    )
    forms = {k: v for k, v in (aggregate or {}).items() if isinstance(v, dict) and "agreement" in v}
    if not forms:
        table.empty = "No human preferences for this dataset: nothing to aggregate."
        return table
    records = []
    for key, rec in forms.items():
        agr = rec["agreement"]
        held, train = (agr.get("held_out"), agr.get("train")) if isinstance(agr, dict) else (agr, None)
        # each side is a share, or {"n", "agreement", "strict", "ties"} as tst.metrics.aggregate writes it
        ci = held.get("ci95") if isinstance(held, dict) else None
        held, train = (x.get("agreement") if isinstance(x, dict) else x for x in (held, train))
        params = _compact({k: v for k, v in rec.items() if k != "agreement"})
        if ci:
            params = f"held-out 95% interval [{fmt(ci[0], 3)}, {fmt(ci[1], 3)}]" + (
                f"; {params}" if params else ""
            )
        records.append(
            [key, float("nan") if held is None else held, float("nan") if train is None else train, params]
        )
        table.rows.append([_FORMS.get(key, key), fmt(held, 3), fmt(train, 3), params])
    table.data = pd.DataFrame(records, columns=cols)
    pairs = (aggregate or {}).get("pairs")
    if isinstance(pairs, dict) and "held_out" in pairs:
        table.notes.append(
            f"{pairs.get('train')} training and {pairs['held_out']} held-out preference pairs."
        )
    return table
