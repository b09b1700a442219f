"""How sure is "above PP's" at the sentence level? A paired bootstrap over Li et al.'s rated Yelp rewrites of
each fluency candidate's sentence-level Spearman with the grammaticality ratings minus PP's (docs/fluency.md).

Reads the per-row table that bench/fluency_candidates.py writes (joined.tsv: one row per rated rewrite, the
rating `grammaticality` and one column per candidate). Rows are resampled with replacement (tst.bootstrap's
resample_indices, its default seed); each resample's Spearman of every candidate is computed on the same rows,
in the direction that means "more fluent" (PP negated), so a positive difference = the candidate agrees
better. Prints the point difference, its 95% percentile interval and the paired p-value (tst.bootstrap).

    python bench/fluency_bootstrap.py /tmp/fluency_bench/joined.tsv [--reference pp_no_eos] [--resamples 2000]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from tst.bootstrap import paired_p_value, percentile_interval, resample_indices

# the direction that means "more fluent": PP-like columns are negated
LOWER_IS_BETTER = ("pp_no_eos", "pp_joint")


def spearman_rows(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Spearman of x and y on each row of resample indices idx (ranks recomputed per resample, ties averaged)."""
    out = np.empty(len(idx))
    for b, i in enumerate(idx):
        out[b] = np.corrcoef(rankdata(x[i]), rankdata(y[i]))[0, 1]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("joined")
    ap.add_argument("--reference", default="pp_no_eos")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--rating", default="grammaticality")
    args = ap.parse_args()
    d = pd.read_csv(args.joined, sep="\t")
    y = d[args.rating].to_numpy(dtype=float)
    first = list(d.columns).index("n_systems_same_output") + 1  # candidate columns follow the join's own
    cands = [c for c in d.columns[first:] if c != args.reference]

    def oriented(c: str) -> np.ndarray:
        v = d[c].to_numpy(dtype=float)
        return -v if c in LOWER_IS_BETTER else v

    idx = resample_indices(len(d), args.resamples)
    every = np.arange(len(d))[None, :]
    ref = spearman_rows(oriented(args.reference), y, every)[0]
    ref_b = spearman_rows(oriented(args.reference), y, idx)
    lo, hi = percentile_interval(ref_b)
    print(f"{args.reference}: sentence Spearman {ref:+.4f} [{lo:+.4f}, {hi:+.4f}] (n = {len(d)})")
    print(
        f"| candidate | sentence ρ | minus {args.reference}'s | 95% interval | paired p |\n|---|---:|---:|---|---:|"
    )
    for c in cands:
        x = oriented(c)
        point = spearman_rows(x, y, every)[0]
        b = spearman_rows(x, y, idx)
        lo, hi = percentile_interval(b - ref_b)
        p = paired_p_value(point, ref, b, ref_b)
        print(f"| `{c}` | {point:+.4f} | {point - ref:+.4f} | [{lo:+.4f}, {hi:+.4f}] | {p:.3f} |")


if __name__ == "__main__":
    main()
