"""Build every table and plot of one dataset from its score files (what the report rules run)."""

from __future__ import annotations

import logging
from pathlib import Path

from tst import signature
from tst.defaults import default
from tst.io import read_json
from tst.metrics.registry import GM_CONTENT
from tst.report import figure, leaderboard, plots, table_writer, tables, validity
from tst.report.contents import PLOTS, TABLE_FORMATS, TABLES  # noqa: F401 (build.TABLES etc.: the names)
from tst.report.scores import load_scores, variant_order

log = logging.getLogger(__name__)

# The `report:` config section's defaults: config.yaml's (the tie tolerance of Tables 2/3 and 6 is its 0.05).
DEFAULTS = default("report")

# Trade-off axes (x candidates, y candidates, title): the first key that some score file has is used.
TRADEOFFS = {
    "tradeoff_ts_cp": (
        ["transfer_strength", "acc"],
        ["cp", "sim"],
        "Transfer strength vs content (Fu et al.)",
    ),
    "tradeoff_sti_wmd": (["wmd_masked", "wmd_removed"], ["sti"], "Style intensity vs WMD (Mir et al.)"),
    "tradeoff_nat_sti": (["sti"], ["naturalness_nn", "naturalness_lr"], "Naturalness vs STI (Mir et al.)"),
}


def settings(report_config: dict | None) -> dict:
    unknown = set(report_config or {}) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown report settings: {sorted(unknown)}")
    return {**DEFAULTS, **(report_config or {})}


def build_tables(
    score_paths,
    out_dir,
    report_config: dict | None = None,
    variants: list[str] | None = None,
    correlation_csv=None,
    aggregate_json=None,
    gm_t=None,
    warmups: dict | None = None,
    calibration: dict | None = None,
    checks: dict | None = None,
    honest: list[str] | None = None,
    rated=None,
    bootstrap: dict | None = None,
    originals=(),
) -> list[Path]:
    """Write results/{dataset}/tables/{name}.{csv,md,tex,html} for every name in TABLES. gm_t: when given, GM is
    recomputed from each score file's corpus Acc, Sim and PP with these thresholds (see load_scores); warmups:
    variant -> the epoch up to which its lambda_cyc is 0 (tst.stages.cycle_warmups), marked ‡ in the tables;
    calibration: the calibrated GM's thresholds (validity/gm_thresholds.json); checks: validity/checks.json;
    honest: the external systems a valid metric must rank above every sanity baseline (with our models);
    rated: human/ratings_with_metrics.tsv (the leaderboard's human columns; each metric's system-level Spearman
    with the human ratings);
    bootstrap: the leaderboard's resampling options (tst.stages.bootstrap_options), which reads the per-sentence
    TSV beside each score JSON; originals: the score files of the systems whose damaged copies `checks` holds (the
    word-order table's rows as they are)."""
    s = settings(report_config)
    frame, info = load_scores(score_paths, gm_t, calibration)
    out = [
        leaderboard.leaderboard_table(
            frame, info, score_paths, s, bootstrap, gm_t, calibration, warmups, rated=rated
        ),
        tables.pang_gimpel_table(
            frame,
            info,
            s["target_acc"],
            s["tolerance"],
            variants,
            s["acc_key"],
            s["sim_key"],
            s["pp_key"],
            s["gm_key"],
            warmups=warmups,
        ),
        tables.bleu_ref_table(
            frame,
            info,
            s["bleu_acc_targets"],
            s["tolerance"],
            variants,
            s["bleu_key"],
            s["acc_key"],
            warmups=warmups,
        ),
        tables.side_by_side_table(
            frame, info, s["target_acc"], s["tolerance"], variants, s["acc_key"], warmups=warmups
        ),
        tables.human_correlation_table(tables.read_correlations(correlation_csv), info),
        tables.aggregation_table(
            read_json(aggregate_json) if aggregate_json and Path(aggregate_json).exists() else None
        ),
        validity.validity_table(
            frame,
            info,
            list(honest or []),
            s["target_acc"],
            s["tolerance"],
            human=validity.gm_vs_human(frame, rated),
        ),
        validity.separation_table(checks),
        validity.word_order_table(checks, gm_t, calibration, validity.metrics_by_system(originals)),
    ]
    sig = signature.of_score_files(
        [read_json(p) for p in score_paths], gm_t, (calibration or {}).get("t") if gm_t is not None else None
    )
    for t in out:  # every table's last footnote: what its scores were computed with
        t.notes.append(signature.NOTE + sig["line"])
    return [p for t in out for p in table_writer.write_table(t, out_dir)]


def _first(info, candidates: list[str]) -> str:
    return next((k for k in candidates if k in info), candidates[0])


def build_plots(
    score_paths,
    out_dir,
    report_config: dict | None = None,
    variants: list[str] | None = None,
    gm_t=None,
    calibration: dict | None = None,
) -> list[Path]:
    """Write results/{dataset}/plots/{name}.{png,svg} for every name in PLOTS (gm_t, calibration: as
    build_tables). tradeoff_leaderboard: the leaderboard's systems, the default GM's style factor against its
    content factor (Acc and the MiniLM cosine, or Sim, when those were not scored)."""
    s = settings(report_config)
    frame, info = load_scores(score_paths, gm_t, calibration)
    given = list(variants or [])
    colors = figure.variant_colors(given + [v for v in variant_order(frame) if v not in given])
    out_dir = Path(out_dir)
    systems, _ = leaderboard.leaderboard_systems(frame, s["target_acc"], s["tolerance"], s["acc_key"])
    # the default GM's style and content factors, else Acc and the content score (Sim when it was not scored)
    style = "style" if "style" in info else s["acc_key"]
    content = next(k for k in ("content", GM_CONTENT, s["sim_key"]) if k in info or k == s["sim_key"])
    figs = {
        "tradeoff_leaderboard": plots.leaderboard_figure(systems, info, colors, style, content),
        "trajectories": plots.trajectory_figure(
            frame, info, colors, variants, s["acc_key"], s["sim_key"], s["pp_key"], target_acc=s["target_acc"]
        ),
        "robust": plots.robust_figure(
            frame, info, colors, variants, s["pp_bins"], s["pp_key"], s["acc_key"], s["robust_cp_key"]
        ),
    }
    for name, (xs, ys, title) in TRADEOFFS.items():
        figs[name] = plots.tradeoff_figure(
            frame, info, colors, _first(info, xs), _first(info, ys), variants, s["tradeoff_split"], title
        )
    return [p for name, fig in figs.items() for p in figure.save_figure(fig, out_dir / name)]
