"""Checkpoint selection at a nearly fixed Acc (Pang & Gimpel 2019, Tables 2/3 and §6.1).

Per variant x seed, the checkpoint whose dev Acc is closest to the target is chosen (ties: the earliest);
its test scores are that model's row. A selection farther than the tolerance from the target is flagged.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from tst.report.scores import ours

log = logging.getLogger(__name__)

SELECTION_COLUMNS = ["variant", "seed", "system", "checkpoint", "epoch", "dev_acc", "distance", "within"]


def select_checkpoints(
    frame: pd.DataFrame, target_acc: float, tolerance: float, acc_key: str = "acc", split: str = "dev"
) -> pd.DataFrame:
    """One row per (variant, seed): the `split` checkpoint whose Acc is closest to target_acc.
    `within` is False when even the closest checkpoint is more than `tolerance` away."""
    rows = []
    if acc_key not in frame.columns:
        log.warning("no score file has %s: no checkpoint selected", acc_key)
        return pd.DataFrame(columns=SELECTION_COLUMNS)
    dev = ours(frame)
    dev = dev[(dev["split"] == split) & dev[acc_key].notna()]
    for (variant, seed), g in dev.groupby(["variant", "seed"], sort=True):
        g = g.sort_values("epoch", kind="stable")
        dist = np.abs(g[acc_key].to_numpy() - target_acc)
        i = int(np.argmin(dist))  # first minimum = earliest checkpoint among ties
        r = g.iloc[i]
        within = bool(dist[i] <= tolerance + 1e-9)
        if not within:
            log.warning(
                "%s seed %s: closest dev %s %.4f is outside %.3f +- %.3f",
                variant,
                seed,
                acc_key,
                r[acc_key],
                target_acc,
                tolerance,
            )
        rows.append(
            [
                variant,
                int(seed),
                r["system"],
                r["checkpoint"],
                float(r["epoch"]),
                float(r[acc_key]),
                float(dist[i]),
                within,
            ]
        )
    return pd.DataFrame(rows, columns=SELECTION_COLUMNS)


def selected_rows(frame: pd.DataFrame, selection: pd.DataFrame, split: str = "test") -> pd.DataFrame:
    """The `split` score rows of the selected checkpoints, with the selection columns attached
    (a selected checkpoint without a `split` score file is logged and left out)."""
    rows = []
    for s in selection.itertuples(index=False):
        hit = frame[
            (frame["system"] == s.system) & (frame["checkpoint"] == s.checkpoint) & (frame["split"] == split)
        ]
        if hit.empty:
            log.warning("no %s scores for %s at %s (selected on dev)", split, s.system, s.checkpoint)
            continue
        row = hit.iloc[0].copy()
        row["dev_acc"], row["within"] = s.dev_acc, s.within
        rows.append(row)
    return pd.DataFrame(rows).reset_index(drop=True) if rows else pd.DataFrame(columns=frame.columns)


def mean_sd_over_seeds(rows: pd.DataFrame, keys: list[str], variants: list[str]) -> pd.DataFrame:
    """Per variant (in the given order): n_seeds, the selected checkpoints, whether every seed is within
    tolerance, and for each key `{key}` = mean and `{key}_sd` = sample sd (ddof 1; NaN for one seed)."""
    out = []
    for v in variants:
        g = rows[rows["variant"] == v] if len(rows) else rows
        if g.empty:
            continue
        g = g.sort_values("seed")
        rec = {
            "variant": v,
            "n_seeds": len(g),
            "within": bool(g["within"].all()),
            "checkpoints": "/".join(str(c) for c in g["checkpoint"]),
        }
        for k in keys:
            vals = g[k].dropna().to_numpy(dtype=float) if k in g else np.array([])
            rec[k] = float(vals.mean()) if len(vals) else float("nan")
            rec[f"{k}_sd"] = float(vals.std(ddof=1)) if len(vals) > 1 else float("nan")
        out.append(rec)
    return pd.DataFrame(out)
