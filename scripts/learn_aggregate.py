"""Learn GM thresholds t, exponents alpha and a small MLP from human preferences; report agreement.

Usage: python scripts/learn_aggregate.py --ratings ratings-yelp.csv --outputs li/outputs \
    --scores mit=results/yelp/scores/mit/test.final.tsv ... --out results/yelp/human/aggregate.json
"""

from __future__ import annotations

import argparse

import torch

from tst.human.correlation import load_rated_metrics
from tst.human.ratings import preference_pairs
from tst.io import write_json
from tst.metrics.aggregate import (
    learn_gm_multistart,
    learn_mlp,
    mlp_state,
    pair_agreement,
    pair_features,
    score_gm,
    wide_start,
)
from tst.metrics.gm import DEFAULT_T


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ratings", required=True)
    ap.add_argument("--outputs", required=True, help="folder of sentiment.test.{0,1}.<system> files")
    ap.add_argument("--scores", nargs="+", required=True, help="system=per-sentence score TSV")
    ap.add_argument("--out", required=True)
    ap.add_argument("--columns", nargs=3, default=["acc", "sim", "pp_joint"], help="Acc, Sim, PP columns")
    ap.add_argument("--held-out", type=float, default=0.3)
    ap.add_argument("--exclude-systems", nargs="*", default=[])
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--lr", type=float, default=0.5, help="Adam step for t (percent points / PP units)")
    ap.add_argument("--mlp-hidden", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    scores = dict(item.split("=", 1) for item in args.scores)
    table, joined, report = load_rated_metrics(args.ratings, args.outputs, scores)
    pairs = preference_pairs(table, exclude_systems=args.exclude_systems, held_out=args.held_out)
    xp, xm, keep = pair_features(pairs, joined, args.columns)
    held = pairs["held_out"].to_numpy()[keep]
    tr, te = ~held, held

    def agree(score_fn) -> dict:
        return {"train": pair_agreement(score_fn(xp[tr]), score_fn(xm[tr])),
                "held_out": pair_agreement(score_fn(xp[te]), score_fn(xm[te]))}

    # two starts (Pang & Gimpel's t and one where every rewrite is alive), best training agreement kept
    starts = [DEFAULT_T, wide_start(xp[tr], xm[tr])]
    t_fit = learn_gm_multistart(xp[tr], xm[tr], starts, steps=args.steps, lr=args.lr)
    ta_fit = learn_gm_multistart(xp[tr], xm[tr], starts, alpha=True, steps=args.steps, lr=args.lr)
    mlp, mlp_fit = learn_mlp(xp[tr], xm[tr], hidden=args.mlp_hidden, steps=args.steps, seed=args.seed)
    write_json(args.out, {
        "columns": {"acc": args.columns[0], "sim": args.columns[1], "pp": args.columns[2]},
        "overall_human_score": "mean of grammaticality, sentiment, topic (1-5); ties dropped",
        "ratings": report,
        "pairs": {"total": len(pairs), "with_metrics": int(keep.sum()),
                  "train": int(tr.sum()), "held_out": int(te.sum()), "held_out_share": args.held_out,
                  "excluded_systems": args.exclude_systems},
        "default_t": {"t": list(DEFAULT_T), "agreement": agree(lambda x: score_gm(x, DEFAULT_T))},
        "learned_t": {**t_fit, "agreement": agree(lambda x: score_gm(x, t_fit["t"]))},
        "learned_t_alpha": {**ta_fit,
                            "agreement": agree(lambda x: score_gm(x, ta_fit["t"], ta_fit["alpha"]))},
        "mlp": {**mlp_fit, "hidden": args.mlp_hidden, "agreement": agree(mlp.score),
                "state_dict": mlp_state(mlp)},
    })


if __name__ == "__main__":
    main()
