"""Metric-vs-human correlation at sentence and system level (Spearman, Pearson, Kendall; scipy.stats).

Each metric is compared with the human aspect it claims to measure (Li et al.'s three 1-5 ratings):
content -> topic, style -> sentiment, fluency -> grammaticality. Signs are reported raw: metrics where
lower is better (perplexities, WMD distances) should correlate negatively (`expected_sign` = -1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from tst.metrics.registry import HUMAN_ASPECT, METRICS

# From the metric registry: each metric's aspect (content -> topic, style -> sentiment, fluency ->
# grammaticality), grouped by aspect in that order, registry order within an aspect.
ASPECT_OF_METRIC = {
    k: m.human_aspect
    for aspect in HUMAN_ASPECT
    for k, m in METRICS.items()
    if m.aspect == aspect and m.human_aspect
}
LOWER_IS_BETTER = {k for k, m in METRICS.items() if not m.higher_is_better}


def join_metrics(
    ratings: pd.DataFrame, metrics_by_system: dict[str, pd.DataFrame], n_style0: int | None = None
) -> pd.DataFrame:
    """Ratings rows (see tst.human.ratings.match_ratings) with each system's per-sentence metrics added.

    A metric DataFrame has rows for that system's outputs of style-0 sources then style-1 sources. With a
    `source` column the join is on (system, source, source_style by position); without it, on the line
    index: row = line + source_style * n_style0. Systems without metrics are dropped.
    """
    parts = []
    for system, df in metrics_by_system.items():
        r = ratings[ratings["system"] == system]
        if r.empty:
            continue
        df = df.reset_index(drop=True)
        if "source" in df.columns:
            if n_style0 is None:
                raise ValueError("n_style0 is needed to tell the two source styles apart")
            df = df.assign(source_style=(df.index >= n_style0).astype(int))
            df = df.drop_duplicates(["source", "source_style"], keep="first")
            cols = [c for c in df.columns if c not in ("output",)]
            parts.append(r.merge(df[cols], on=["source", "source_style"], how="inner"))
        else:
            if n_style0 is None:
                raise ValueError("n_style0 is needed to join by line")
            rows = df.iloc[(r["line"] + r["source_style"] * n_style0).to_numpy()].reset_index(drop=True)
            if "source_style" in rows.columns and not np.array_equal(
                rows["source_style"].to_numpy(), r["source_style"].to_numpy()
            ):
                raise ValueError(
                    f"{system}: score rows and ratings disagree on the source style; "
                    f"is n_style0={n_style0} the number of style-0 test sentences?"
                )
            rows = rows.drop(columns=[c for c in rows.columns if c in r.columns])  # keep one copy of each
            parts.append(pd.concat([r.reset_index(drop=True), rows], axis=1))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _corr(x: np.ndarray, y: np.ndarray) -> dict:
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    out = {"n": len(x)}
    for name, fn in (
        ("spearman", stats.spearmanr),
        ("pearson", stats.pearsonr),
        ("kendall", stats.kendalltau),
    ):
        if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
            out[name], out[f"{name}_p"] = float("nan"), float("nan")
        else:
            r = fn(x, y)
            out[name], out[f"{name}_p"] = float(r.statistic), float(r.pvalue)
    return out


def correlations(
    joined: pd.DataFrame, aspect_of_metric: dict[str, str] = ASPECT_OF_METRIC, levels=("sentence", "system")
) -> pd.DataFrame:
    """One row per (metric, level): metric, aspect, level, expected_sign, n, spearman, pearson, kendall
    and their p-values. Sentence level: every rated (source, system) row. System level: per-system means
    of the metric and of the human rating over the same rows (n = number of systems)."""
    rows = []
    for metric, aspect in aspect_of_metric.items():
        if metric not in joined.columns:
            continue
        d = pd.DataFrame(
            {
                "system": joined["system"],
                aspect: joined[aspect],
                metric: pd.to_numeric(joined[metric], errors="coerce"),
            }
        ).dropna()
        for level in levels:
            g = d if level == "sentence" else d.groupby("system")[[metric, aspect]].mean()
            rows.append(
                {
                    "metric": metric,
                    "aspect": aspect,
                    "level": level,
                    "expected_sign": -1 if metric in LOWER_IS_BETTER else 1,
                    **_corr(g[metric].to_numpy(float), g[aspect].to_numpy(float)),
                }
            )
    return pd.DataFrame(rows)


def read_score_tsv(path) -> pd.DataFrame:
    """A per-sentence score TSV (header = metric keys, plus `source`, `output` text columns)."""
    return pd.read_csv(path, sep="\t", keep_default_na=False, dtype={"source": str, "output": str})


def load_rated_metrics(ratings_csv, outputs_dir, score_tsvs: dict) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(ratings table, ratings joined with each system's per-sentence metrics, matching report).

    score_tsvs: {system: path of its per-sentence TSV}; system names are the output-file suffixes.
    """
    from tst.human.ratings import match_ratings, parse_ratings_csv, read_system_outputs

    outs = read_system_outputs(outputs_dir)
    table, report = match_ratings(parse_ratings_csv(ratings_csv), outs)
    n_style0 = len(next(iter(outs.values()))[0])
    metrics = {s: read_score_tsv(p) for s, p in score_tsvs.items()}
    return table, join_metrics(table, metrics, n_style0=n_style0), report
