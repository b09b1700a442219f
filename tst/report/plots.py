"""The papers' figures from score files (matplotlib, Agg), each saved as PNG and SVG.

- trajectory_figure: Pang & Gimpel Fig. 1 (Sim vs 1 - Acc, PP vs Sim; a marker per checkpoint)
- robust_figure: Yu et al. Fig. 2a (PP bins; per bin the best Acc / content preservation of any checkpoint)
- tradeoff_figure: Fu et al. Fig. 2 and Mir et al. (one metric against another; external systems labelled)
- leaderboard_figure: every leaderboard system as one labelled point (the default GM's Style against its Content)
A panel whose metric no score file has is drawn empty with the reason written on it (and logged).
"""

from __future__ import annotations

import itertools
import logging
import textwrap

import matplotlib

matplotlib.use("Agg")  # before pyplot (tst.report.figure sets it too)
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tst import baselines, names
from tst.report.figure import absent, fit_axes, off_axis, place_labels, wrap_lines
from tst.report.leaderboard import cell_value
from tst.report.scores import MetricInfo, digits, external, ours, variant_order

log = logging.getLogger(__name__)


def _label(info: dict[str, MetricInfo], key: str) -> str:
    return info[key].axis_label() if key in info else key


def _error_label(info: dict[str, MetricInfo], acc_key: str) -> str:
    """Axis label of 1 - Acc (error rate): lower is better when Acc is higher-is-better."""
    m = info[acc_key]
    return f"1 − {m.label} (error rate) {'↓' if m.higher_is_better else '↑'}"


def footnote(fig, info: dict[str, MetricInfo], keys, extra: tuple[str, ...] = ()) -> None:
    """The exact definition of each metric on the axes (and any extra lines), under the figure."""
    lines = [info[k].definition() for k in dict.fromkeys(keys) if k in info] + list(extra)
    shortened = [textwrap.shorten(line, 230, placeholder=" …") for line in lines]
    fig.text(
        0.01,
        -0.01,
        wrap_lines("\n".join(shortened), 0.99 * fig.get_figwidth(), 6.5),
        ha="left",
        va="top",
        fontsize=6.5,
        color="0.25",
        gid="definitions",
    )


def _curve(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean over seeds per checkpoint, in epoch order, rows lacking any key dropped."""
    rows = rows.dropna(subset=keys)
    return rows.groupby("epoch", sort=True)[keys].mean().reset_index()


def _has(frame: pd.DataFrame, info, *keys) -> list[str]:
    return [k for k in keys if k not in info or frame[k].notna().sum() == 0]


def trajectory_figure(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    colors: dict,
    variants=None,
    acc_key: str = "acc",
    sim_key: str = "sim",
    pp_key: str = "pp_joint",
    split: str = "dev",
    target_acc: float | None = None,
):
    """(a) Sim by 1 - Acc, (b) PP by Sim, on `split`: one curve per variant (mean over seeds),
    consecutive markers half an epoch apart (Pang & Gimpel 2019, Fig. 1). target_acc: a dashed line in (a)
    at 1 - target_acc, where the tables select each seed's checkpoint."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    rows = ours(frame)
    rows = rows[rows["split"] == split]
    order = variant_order(frame, variants)
    for ax, (xk, yk), title in (
        (ax1, (acc_key, sim_key), "(a) Sim by error rate"),
        (ax2, (sim_key, pp_key), "(b) PP by Sim"),
    ):
        panel = title[1]
        ax.set_title(f"{title}, {split} set", fontsize=10)
        missing = _has(rows, info, xk, yk)
        if not order or missing:
            absent(ax, "no trained models" if not order else f"no {split} scores for {', '.join(missing)}")
            continue
        for v in order:
            c = _curve(rows[rows["variant"] == v], [xk, yk])
            if c.empty:
                log.warning("trajectory: %s has no %s rows with %s and %s", v, split, xk, yk)
                continue
            x = 1.0 - c[xk] if xk == acc_key else c[xk]
            ax.plot(
                x, c[yk], marker="o", ms=3.5, lw=1.2, color=colors.get(v), label=v, gid=f"{panel}-series-{v}"
            )
            for i, text in epoch_marks(c["epoch"].tolist()).items():
                last = i == len(c) - 1
                if last:
                    ax.plot(
                        x.iloc[i],
                        c[yk].iloc[i],
                        marker="*",
                        ms=10,
                        color=colors.get(v),
                        mec="k",
                        mew=0.5,
                        ls="none",
                        gid=f"{panel}-last-{v}",
                    )
                ax.annotate(
                    text,
                    (x.iloc[i], c[yk].iloc[i]),
                    textcoords="offset points",
                    xytext=(4, -9),
                    fontsize=6,
                    color=colors.get(v),
                    fontweight="bold" if last else "normal",
                )
        if xk == acc_key and target_acc is not None:
            ax.axvline(
                1.0 - target_acc,
                ls="--",
                lw=0.8,
                color="0.5",
                gid=f"{panel}-target",
                label=f"Acc = {target_acc:g} (tables)",
            )
        ax.set_xlabel(_error_label(info, xk) if xk == acc_key else _label(info, xk), fontsize=8)
        ax.set_ylabel(_label(info, yk), fontsize=8)
        ax.legend(fontsize=7)
    fig.tight_layout()
    footnote(
        fig,
        info,
        [acc_key, sim_key, pp_key],
        (("A dot per checkpoint; labels at every whole epoch; ★ = the last checkpoint."),),
    )
    return fig


def epoch_marks(epochs: list[float]) -> dict[int, str]:
    """Which points of a trajectory get a label: the first, every whole epoch, and the last (`ep5 (last)`)."""
    marks = {i: f"ep{e:g}" for i, e in enumerate(epochs) if i == 0 or float(e).is_integer()}
    if epochs:
        marks[len(epochs) - 1] = f"ep{epochs[-1]:g} (last)"
    return marks


def pp_edges(values: np.ndarray, bins) -> np.ndarray:
    """Bin edges: a list of edges as given, or an int = that many equal-width bins over the values."""
    if isinstance(bins, (list, tuple, np.ndarray)):
        return np.asarray(bins, dtype=float)
    lo, hi = float(np.min(values)), float(np.max(values))
    if hi <= lo:
        hi = lo + 1.0
    return np.linspace(lo, hi, int(bins) + 1)


def robust_curves(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    edges: np.ndarray,
    variant: str,
    pp_key: str,
    y_key: str,
    split: str = "dev",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Yu et al. §3.2: per seed, the best `y_key` among checkpoints whose PP falls in each bin
    [e_i, e_{i+1}) (last bin closed); returns per bin the mean over seeds, the sample sd (ddof 1, as in the
    tables; NaN where fewer than two seeds reached the bin) and the number of seeds that reached the bin
    (mean NaN where none did)."""
    rows = ours(frame)
    rows = rows[(rows["split"] == split) & (rows["variant"] == variant)].dropna(subset=[pp_key, y_key])
    nb = len(edges) - 1
    best_per_seed = []
    for _, g in rows.groupby("seed"):
        idx = np.searchsorted(edges, g[pp_key].to_numpy(), side="right") - 1
        idx[g[pp_key].to_numpy() == edges[-1]] = nb - 1
        best = np.full(nb, np.nan)
        for b, y in zip(idx, g[y_key].to_numpy()):
            if 0 <= b < nb:
                better = y > best[b] if info[y_key].higher_is_better else y < best[b]
                best[b] = y if np.isnan(best[b]) or better else best[b]
        best_per_seed.append(best)
    if not best_per_seed:
        return np.full(nb, np.nan), np.full(nb, np.nan), np.zeros(nb, dtype=int)
    m = np.array(best_per_seed)
    n = (~np.isnan(m)).sum(axis=0)
    with np.errstate(invalid="ignore"):
        mean = np.where(n > 0, np.nansum(m, axis=0) / np.maximum(n, 1), np.nan)
        sd = np.array([np.nanstd(m[:, b], ddof=1) if n[b] > 1 else np.nan for b in range(nb)])
    return mean, sd, n


def robust_figure(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    colors: dict,
    variants=None,
    pp_bins=6,
    pp_key: str = "pp_joint",
    acc_key: str = "acc",
    cp_key: str = "sim",
    split: str = "dev",
):
    """Robust evaluation (Yu et al. 2021, Fig. 2a): naturalness (PP) bins on x; per bin the best Acc
    and the best content preservation reached by any checkpoint; mean over seeds, band = ± sd."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    rows = ours(frame)
    rows = rows[rows["split"] == split]
    order = variant_order(frame, variants)
    for ax, yk, title in (
        (axes[0], acc_key, "Naturalness – style transfer"),
        (axes[1], cp_key, "Naturalness – content preservation"),
    ):
        panel = "a" if ax is axes[0] else "b"
        ax.set_title(f"{title}, {split} set", fontsize=10)
        missing = _has(rows, info, pp_key, yk)
        if not order or missing:
            absent(ax, "no trained models" if not order else f"no {split} scores for {', '.join(missing)}")
            continue
        edges = pp_edges(rows[pp_key].dropna().to_numpy(), pp_bins)
        centres = (edges[:-1] + edges[1:]) / 2
        for v in order:
            mean, sd, _ = robust_curves(frame, info, edges, v, pp_key, yk, split)
            ax.plot(
                centres,
                mean,
                marker="o",
                ms=4,
                lw=1.2,
                color=colors.get(v),
                label=v,
                gid=f"{panel}-series-{v}",
            )
            if np.isfinite(sd).any():  # a band where at least two seeds reached a bin
                ax.fill_between(
                    centres,
                    mean - sd,
                    mean + sd,
                    where=np.isfinite(sd),
                    color=colors.get(v),
                    alpha=0.2,
                    lw=0,
                    gid=f"{panel}-spread-{v}",
                    label=f"{v} ± sd over seeds",
                )
        ax.set_xticks(centres)
        ax.set_xticklabels(
            [f"{a:.4g}–{b:.4g}" for a, b in itertools.pairwise(edges)], fontsize=7, rotation=30
        )
        ax.set_xlabel(f"{_label(info, pp_key)} — bin", fontsize=8)
        ax.set_ylabel(f"best {_label(info, yk)}", fontsize=8)
        ax.legend(fontsize=7)
    fig.tight_layout()
    seeds = ours(frame).groupby("variant")["seed"].nunique()
    footnote(
        fig,
        info,
        [pp_key, acc_key, cp_key],
        (
            (
                "Line: mean over seeds of each seed's best checkpoint in the bin; band: ± sample sd over seeds "
                f"(drawn where at least two seeds reached a bin; seeds per variant: {seeds.max() if len(seeds) else 0})."
            ),
        ),
    )
    return fig


# Metrics whose values come from a classifier trained per system (Mir et al.'s adversarial naturalness):
# a system's score is measured against its own classifier, so values of different systems share no scale.
PER_SYSTEM = ("naturalness_nn", "naturalness_lr")
PER_SYSTEM_NOTE = "own classifier per system: values of different systems are not comparable"


def tradeoff_figure(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    colors: dict,
    x_key: str,
    y_key: str,
    variants=None,
    split: str = "test",
    title: str = "",
):
    """One metric against another (Fu et al. 2018 Fig. 2; Mir et al. 2019): a curve per variant over its
    checkpoints (mean over seeds), external systems as labelled points."""
    fig, ax = plt.subplots(figsize=(6.5, 5))
    ax.set_title(f"{title}, {split} set" if title else f"{split} set", fontsize=10)
    missing = _has(frame[frame["split"] == split], info, x_key, y_key)
    if missing:
        absent(ax, f"no {split} scores for {', '.join(missing)}")
        return fig
    rows = ours(frame)
    rows = rows[rows["split"] == split]
    honest = []
    for v in variant_order(frame, variants):
        c = _curve(rows[rows["variant"] == v], [x_key, y_key])
        if not c.empty:
            honest += list(zip(c[x_key], c[y_key]))
            ax.plot(
                c[x_key],
                c[y_key],
                marker="o",
                ms=3.5,
                lw=1.2,
                color=colors.get(v),
                label=v,
                gid=f"series-{v}",
            )
    ext = external(frame)
    ext = ext[ext["split"] == split].dropna(subset=[x_key, y_key])
    is_baseline = ext["system"].isin(baselines.BUILT)  # the copy baseline, `source`, is honest here
    honest += list(zip(ext[~is_baseline][x_key], ext[~is_baseline][y_key]))
    outside = dict(zip(ext["system"], fit_axes(ax, honest, list(zip(ext[x_key], ext[y_key])))))
    for part, color, label, gid in (
        (ext[~is_baseline], "0.2", "external systems", "external"),
        (ext[is_baseline], "0.7", "sanity baselines", "baselines"),
    ):
        if not len(part):
            continue
        ax.scatter(part[x_key], part[y_key], marker="s", s=22, color=color, zorder=3, label=label, gid=gid)
        for r in part.itertuples():
            name = names.display_name(r.system)
            if outside[r.system]:
                off_axis(
                    ax, getattr(r, x_key), getattr(r, y_key), name, color, (digits(x_key), digits(y_key))
                )
                continue
            ax.annotate(
                name,
                (getattr(r, x_key), getattr(r, y_key)),
                textcoords="offset points",
                xytext=(4, 3),
                fontsize=7,
                color=color,
            )
    caveat = [k for k in (x_key, y_key) if k in PER_SYSTEM]
    ax.set_xlabel(_label(info, x_key) + (f"\n{PER_SYSTEM_NOTE}" if x_key in caveat else ""), fontsize=8)
    ax.set_ylabel(_label(info, y_key) + (f"\n{PER_SYSTEM_NOTE}" if y_key in caveat else ""), fontsize=8)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fig.tight_layout()
    footnote(
        fig,
        info,
        [x_key, y_key],
        tuple(
            f"{info[k].label}: each system is scored by an adversarial classifier trained on that system's own "
            "outputs, so a higher value means harder to tell from human text for that classifier only; compare "
            "a system's checkpoints, not systems."
            for k in caveat
            if k in info
        ),
    )
    return fig


# The leaderboard plot's marker per kind of system (tst.report.tables._kind; ours: a circle in its variant's
# colour), drawn in this order.
KIND_STYLE = {  # greys and black: the variants take the colours (variant_colors)
    "published": ("s", "0.3", "published systems"),
    "references": ("*", "black", "human references"),
    "untransferred": ("D", "0.55", "untransferred"),
    "baseline": ("v", "0.65", "sanity baselines"),
}


def leaderboard_figure(
    systems: list[dict],
    info: dict[str, MetricInfo],
    colors: dict,
    x_key: str,
    y_key: str,
) -> plt.Figure:
    """Every leaderboard system (tst.report.leaderboard.leaderboard_systems: published, references, the
    untransferred source, baselines, each seed of ours at its selected checkpoint) as one point, x_key against
    y_key on the test set, each labelled with its leaderboard name."""
    fig, ax = plt.subplots(figsize=(7, 5.5))
    ax.set_title("Every leaderboard system, test set", fontsize=10)
    rows = [
        r
        for r in systems
        if cell_value(r["row"], x_key) is not None and cell_value(r["row"], y_key) is not None
    ]
    if not rows:
        absent(ax, f"no test scores for {x_key} and {y_key}")
        return fig
    color_of = {}
    for kind, (marker, color, label) in KIND_STYLE.items():
        part = [r for r in rows if r["kind"] == kind]
        if part:
            ax.scatter(
                [cell_value(r["row"], x_key) for r in part],
                [cell_value(r["row"], y_key) for r in part],
                marker=marker,
                s=40 if marker == "*" else 24,
                color=color,
                zorder=3,
                label=label,
                gid=f"kind-{kind}",
            )
            color_of.update({r["label"]: color for r in part})
    for v in dict.fromkeys(r["variant"] for r in rows if r["kind"] == "ours"):
        part = [r for r in rows if r["kind"] == "ours" and r["variant"] == v]
        ax.scatter(
            [cell_value(r["row"], x_key) for r in part],
            [cell_value(r["row"], y_key) for r in part],
            marker="o",
            s=24,
            color=colors.get(v),
            zorder=3,
            label=f"{v} (ours, selected checkpoint)",
            gid=f"series-{v}",
        )
        color_of.update({r["label"]: colors.get(v) for r in part})
    ax.set_xlabel(_label(info, x_key), fontsize=8)
    ax.set_ylabel(_label(info, y_key), fontsize=8)
    ax.margins(0.12)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    place_labels(
        ax, [(cell_value(r["row"], x_key), cell_value(r["row"], y_key), r["label"]) for r in rows], color_of
    )
    footnote(fig, info, [x_key, y_key])
    return fig
