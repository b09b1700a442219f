"""The papers' tables from score files, each written as CSV, Markdown and LaTeX by one writer.

- pang_gimpel_table: Pang & Gimpel Tables 2/3 (variants at a nearly fixed Acc; Acc, Sim, PP, GM, others)
- bleu_ref_table: Pang & Gimpel Table 6 (BLEU vs human references with Acc on the same sentences)
- side_by_side_table: Yu et al. Table 2 shape (every system x every metric)
- human_correlation_table: metric vs human ratings (sentence and system level)
- aggregation_table: agreement of GM (default / learned t) and the richer forms with human preferences
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from tst.report.scores import LABELS, MetricInfo, digits, external, variant_order
from tst.report.select import mean_sd_over_seeds, select_checkpoints, selected_rows


@dataclass
class Table:
    name: str  # file stem
    caption: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    short_columns: list[str] | None = None  # Markdown/LaTeX headers (CSV keeps `columns` in full)


def fmt(x, d: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{d}f}"


def fmt_mean_sd(mean: float, sd: float, d: int = 3) -> str:
    """'mean ± sd' (just the mean when sd is undefined, i.e. one seed)."""
    if mean is None or math.isnan(mean):
        return ""
    return fmt(mean, d) if sd is None or math.isnan(sd) else f"{fmt(mean, d)} ± {fmt(sd, d)}"


# ---- the one writer ------------------------------------------------------------------------------

_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "↑": r"$\uparrow$", "↓": r"$\downarrow$", "±": r"$\pm$", "−": "$-$", "†": r"$\dagger$",
        "ρ": r"$\rho$", "τ": r"$\tau$", "×": r"$\times$"}


def tex_escape(s: str) -> str:
    return "".join(_TEX.get(c, c) for c in str(s))


def _md_cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def write_table(table: Table, out_dir: str | Path) -> list[Path]:
    """Write {name}.csv, {name}.md and {name}.tex under out_dir; returns the three paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{table.name}.{ext}" for ext in ("csv", "md", "tex")]
    with open(paths[0], "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(table.columns)
        w.writerows(table.rows)
    shown = table.short_columns or table.columns
    md = [f"**{_md_cell(table.caption)}**", "",
          "| " + " | ".join(_md_cell(c) for c in shown) + " |",
          "|" + "|".join(":---" if i == 0 else "---:" for i in range(len(table.columns))) + "|"]
    md += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
    md += [""] + [f"- {_md_cell(n)}" for n in table.notes]
    paths[1].write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    tex = [r"\begin{table}[ht]", r"\centering", r"\small",
           r"\begin{tabular}{l" + "r" * (len(table.columns) - 1) + "}", r"\hline",
           " & ".join(tex_escape(c) for c in shown) + r" \\", r"\hline"]
    tex += [" & ".join(tex_escape(c) for c in row) + r" \\" for row in table.rows]
    caption = " ".join([table.caption] + table.notes)
    tex += [r"\hline", r"\end{tabular}", r"\caption{" + tex_escape(caption) + "}",
            r"\label{tab:" + table.name.replace("_", "-") + "}", r"\end{table}"]
    paths[2].write_text("\n".join(tex) + "\n", encoding="utf-8")
    return paths


def _metric_table(name: str, caption: str, first: list[str], info: dict[str, MetricInfo], keys: list[str],
                  last: list[str] = ()) -> Table:
    """A table whose middle columns are metrics: full headers in the CSV, shortened ones in Markdown and
    LaTeX with each metric's full variant in the notes."""
    last = list(last)
    return Table(name, caption, first + [info[k].header() for k in keys] + last,
                 notes=[f"{info[k].label} {info[k].arrow}: {info[k].variant}" for k in keys],
                 short_columns=first + [info[k].short_header() for k in keys] + last)


# ---- Pang & Gimpel Tables 2/3 ---------------------------------------------------------------------

def _pg_keys(info: dict[str, MetricInfo], acc: str, sim: str, pp: str, gm: str) -> list[str]:
    first = [k for k in (acc, sim, pp, gm) if k in info]
    return first + [k for k in info if k not in first]


def pang_gimpel_table(frame: pd.DataFrame, info: dict[str, MetricInfo], target_acc: float, tolerance: float,
                      variants: list[str] | None = None, acc_key: str = "acc", sim_key: str = "sim",
                      pp_key: str = "pp_joint", gm_key: str = "gm", name: str = "pang_gimpel") -> Table:
    """Per variant: test scores of the dev checkpoint closest to target_acc, mean ± sd over seeds."""
    keys = _pg_keys(info, acc_key, sim_key, pp_key, gm_key)
    selection = select_checkpoints(frame, target_acc, tolerance, acc_key)
    rows = selected_rows(frame, selection, "test")
    summary = mean_sd_over_seeds(rows, keys, variant_order(frame, variants))
    acc_name = info[acc_key].label if acc_key in info else acc_key
    table = _metric_table(name, f"Test scores at a nearly fixed Acc: per variant and seed the checkpoint whose "
                          f"dev {acc_name} is closest to {target_acc:g} (tolerance ± {tolerance:g}); "
                          "mean ± sd over seeds (Pang & Gimpel 2019, Tables 2/3).",
                          ["Model"], info, keys, ["seeds", "checkpoint (dev Acc)"])
    for r in summary.to_dict("records"):
        sel = selection[selection["variant"] == r["variant"]].sort_values("seed")
        picked = ", ".join(f"{s.checkpoint} ({s.dev_acc:.3f})" for s in sel.itertuples())
        model = r["variant"] + ("" if r["within"] else " †")
        table.rows.append([model] + [fmt_mean_sd(r[k], r[f"{k}_sd"], digits(k)) for k in keys]
                          + [str(r["n_seeds"]), picked])
    if not (summary["within"].all() if len(summary) else True):
        table.notes.append(f"† no checkpoint of at least one seed came within ± {tolerance:g} of "
                           f"Acc {target_acc:g}; its row is not at the fixed Acc.")
    missing = sorted(set(selection["system"] + " " + selection["checkpoint"])
                     - set(rows["system"] + " " + rows["checkpoint"])) if len(selection) else []
    if missing:
        table.notes.append(f"Selected on dev but without test scores (left out): {', '.join(missing)}.")
    if not table.rows:
        table.notes.append("No trained models in these score files.")
    return table


# ---- Pang & Gimpel Table 6 ------------------------------------------------------------------------

def _external_order(systems) -> list[str]:
    """Published systems first (sorted), then the human references, then the untransferred source."""
    tail = [s for s in ("human", "source") if s in systems]
    return sorted(s for s in systems if s not in tail) + tail


def bleu_ref_table(frame: pd.DataFrame, info: dict[str, MetricInfo], acc_targets: list[float],
                   variants: list[str] | None = None, bleu_key: str = "bleu_ref_corpus", acc_key: str = "acc",
                   name: str = "bleu_ref") -> Table:
    """BLEU against human references and Acc on the same test sentences: external systems, the
    untransferred input, and each of our models at the dev checkpoints closest to each Acc target."""
    keys = [k for k in (bleu_key, acc_key) if k in info]
    table = _metric_table(name, f"{LABELS.get(bleu_key, bleu_key)} between the test outputs and the human "
                          f"references; {LABELS.get(acc_key, acc_key)} on the same sentences (Pang & Gimpel "
                          "2019, Table 6). Our models at the dev checkpoints whose dev Acc is closest to "
                          f"{', '.join(f'{t:g}' for t in acc_targets)}.", ["Model", "checkpoint"], info, keys,
                          ["dev Acc"])
    if acc_key not in info:
        for cols in (table.columns, table.short_columns):
            cols.insert(3, f"{LABELS.get(acc_key, acc_key)} (not computed)")
    if bleu_key not in info:
        table.notes.append(f"No score file has {bleu_key} (no human references for this dataset).")
        return table
    ext = external(frame)
    ext = ext[(ext["split"] == "test") & ext[bleu_key].notna()]
    for system in _external_order(set(ext["system"])):
        for r in ext[ext["system"] == system].to_dict("records"):
            label = "untransferred" if system == "source" else system
            table.rows.append([label, str(r["checkpoint"]), fmt(r[bleu_key], digits(bleu_key)),
                               fmt(r.get(acc_key, float("nan")), digits(acc_key)), ""])
    picks = pd.concat([select_checkpoints(frame, t, float("inf"), acc_key) for t in acc_targets], ignore_index=True)
    if len(picks):
        picks = picks.drop_duplicates(["variant", "seed", "checkpoint"])
        rows = selected_rows(frame, picks, "test")
        order = {v: i for i, v in enumerate(variant_order(frame, variants))}
        if len(rows):
            rows = rows.assign(_o=rows["variant"].map(order)).sort_values(["_o", "seed", "epoch"])
        for r in rows.to_dict("records"):
            table.rows.append([f"{r['variant']} (seed {r['seed']})", str(r["checkpoint"]),
                               fmt(r[bleu_key], digits(bleu_key)), fmt(r.get(acc_key), digits(acc_key)),
                               fmt(r["dev_acc"], 3)])
    return table


# ---- Yu et al. Table 2 shape ----------------------------------------------------------------------

def side_by_side_table(frame: pd.DataFrame, info: dict[str, MetricInfo], target_acc: float, tolerance: float,
                       variants: list[str] | None = None, acc_key: str = "acc",
                       name: str = "metrics_all") -> Table:
    """Every system x every metric on the test split: external systems as scored, our variants at the
    checkpoint selected as in pang_gimpel_table (mean ± sd over seeds)."""
    keys = list(info)
    table = _metric_table(name, "Every system under every metric on the test split (Yu et al. 2021, Table 2 "
                          f"shape); our variants at the dev checkpoint closest to Acc {target_acc:g}, mean ± sd "
                          "over seeds.", ["System"], info, keys)
    ext = external(frame)
    ext = ext[ext["split"] == "test"]
    for system in _external_order(set(ext["system"])):
        for r in ext[ext["system"] == system].to_dict("records"):
            label = "untransferred" if system == "source" else system
            table.rows.append([label] + [fmt(r[k], digits(k)) for k in keys])
    rows = selected_rows(frame, select_checkpoints(frame, target_acc, tolerance, acc_key), "test")
    for r in mean_sd_over_seeds(rows, keys, variant_order(frame, variants)).to_dict("records"):
        table.rows.append([r["variant"] + ("" if r["within"] else " †")]
                          + [fmt_mean_sd(r[k], r[f"{k}_sd"], digits(k)) for k in keys])
    if any(row[0].endswith("†") for row in table.rows):
        table.notes.append(f"† not within ± {tolerance:g} of the target Acc for every seed.")
    return table


# ---- metric vs human ------------------------------------------------------------------------------

_CORR = {"spearman": "Spearman ρ", "pearson": "Pearson r", "kendall": "Kendall τ"}


def human_correlation_table(correlations: pd.DataFrame | None, info: dict[str, MetricInfo],
                            name: str = "metric_vs_human") -> Table:
    """Correlation of each metric with the human rating of its aspect, sentence and system level.
    `correlations` has columns metric, aspect, level, n, spearman, pearson, kendall (others kept)."""
    if correlations is None or correlations.empty:
        t = Table(name, "Metric vs human ratings.", ["metric", "aspect", "level", "n"])
        t.notes.append("No human ratings for this dataset.")
        return t
    cols = list(correlations.columns)
    header = [f"{_CORR[c]} (metric vs rating)" if c in _CORR
              else f"{_CORR[c[:-2]]} p-value" if c.endswith("_p") and c[:-2] in _CORR else c for c in cols]
    table = Table(name, "Correlation of each metric with human ratings of its aspect; a metric whose "
                  "lower values are better (↓) should correlate negatively.", header)
    for r in correlations.to_dict("records"):
        row = []
        for c in cols:
            v = r[c]
            if c == "metric":
                m = info.get(v)
                row.append(m.short_header() if m else LABELS.get(v, str(v)))
            elif c == "n":
                row.append("" if pd.isna(v) else str(int(v)))
            elif c.endswith("_p") and isinstance(v, float):
                row.append("" if math.isnan(v) else f"{v:.2g}")
            elif isinstance(v, float):
                row.append(fmt(v, 3))
            else:
                row.append(str(v))
        table.rows.append(row)
    table.notes += [f"{m.label} {m.arrow}: {m.variant}" for k, m in info.items()
                    if k in set(correlations.get("metric", []))]
    return table


def read_correlations(path: str | Path | None) -> pd.DataFrame | None:
    return pd.read_csv(path) if path and Path(path).exists() else None


# ---- aggregation agreement ------------------------------------------------------------------------

_FORMS = {"default_t": "GM, default t (Pang & Gimpel eq. 1)", "learned_t": "GM, learned t",
          "learned_t_alpha": "GM, learned t and per-factor exponents α", "alpha": "GM with per-factor exponents α",
          "mlp": "MLP over Acc, Sim, PP"}


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
    table = Table(name, "Agreement of aggregate scores with human preference pairs (Pang & Gimpel 2019 "
                  "report 86% for GM).", ["form", "agreement held-out ↑", "agreement train ↑", "parameters"])
    forms = {k: v for k, v in (aggregate or {}).items() if isinstance(v, dict) and "agreement" in v}
    if not forms:
        table.notes.append("No human preferences for this dataset.")
        return table
    for key, rec in forms.items():
        agr = rec["agreement"]
        held, train = (agr.get("held_out"), agr.get("train")) if isinstance(agr, dict) else (agr, None)
        # each side is a share, or {"n", "agreement", "strict", "ties"} as tst.metrics.aggregate writes it
        held, train = (x.get("agreement") if isinstance(x, dict) else x for x in (held, train))
        params = {k: v for k, v in rec.items() if k != "agreement"}
        table.rows.append([_FORMS.get(key, key), fmt(held, 3), fmt(train, 3), _compact(params)])
    pairs = (aggregate or {}).get("pairs")
    if isinstance(pairs, dict) and "held_out" in pairs:
        table.notes.append(f"{pairs.get('train')} training and {pairs['held_out']} held-out preference pairs.")
    return table
