"""GM thresholds t, exponents alpha and a small MLP learned from Li et al.'s human preferences
(Pang & Gimpel 2019 §3.3; Pang 2019 §4.1), with their agreement on training and held-out pairs."""

from __future__ import annotations

import torch

from tst.human.correlation import load_rated_metrics
from tst.human.ratings import preference_pairs
from tst.metrics.aggregate import (
    MAX_TIE_RATE,
    learn_gm_multistart,
    learn_mlp,
    mlp_state,
    pair_agreement,
    pair_features,
    score_gm,
    wide_start,
)
from tst.metrics.gm import DEFAULT_T

ACC_FORMS = {
    "acc_prob": "per-sentence Acc = the CNN's P(target style), graded (as Pang & Gimpel's aggregate needs)",
    "acc": "per-sentence Acc = the CNN's 0/1 decision (GM is 0 for every misclassified rewrite)",
}


def learn_aggregate(
    ratings_csv,
    outputs_dir,
    score_tsvs: dict,
    columns=("acc_prob", "sim", "pp_joint"),
    held_out: float = 0.3,
    exclude_systems=(),
    steps: int = 500,
    lr: float = 0.5,
    mlp_hidden: int = 8,
    seed: int = 0,
) -> dict:
    """The aggregate.json object. score_tsvs: {system: per-sentence score TSV}; columns: Acc, Sim, PP keys
    (Acc: `acc_prob`, the target-class probability, by default; `acc` = the 0/1 decision); lr: Adam step for
    t (percent points / PP units). Agreements are strict shares of pairs with their tie rates
    (tst.metrics.aggregate.pair_agreement); each fit is the minimiser of the training hinge loss."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    columns, exclude_systems = list(columns), list(exclude_systems)
    table, joined, report = load_rated_metrics(ratings_csv, outputs_dir, score_tsvs)
    missing = [c for c in columns if c not in joined.columns]
    if missing:
        raise ValueError(
            f"per-sentence score TSVs ({', '.join(map(str, score_tsvs.values()))}) lack the "
            f"column(s) {missing} named by human_aggregate.columns; rescore the systems or choose "
            f"other columns"
        )
    pairs = preference_pairs(table, exclude_systems=exclude_systems, held_out=held_out)
    xp, xm, keep = pair_features(pairs, joined, columns)
    held = pairs["held_out"].to_numpy()[keep]
    tr, te = ~held, held

    def agree(score_fn) -> dict:
        return {
            "train": pair_agreement(score_fn(xp[tr]), score_fn(xm[tr])),
            "held_out": pair_agreement(score_fn(xp[te]), score_fn(xm[te])),
        }

    default_gm = default_gm_agreement(pairs, joined, tr=~pairs["held_out"].to_numpy(), seed=seed)
    # two starts (Pang & Gimpel's t and one where every rewrite is alive), lowest training loss kept
    starts = [DEFAULT_T, wide_start(xp[tr], xm[tr])]
    t_fit = learn_gm_multistart(xp[tr], xm[tr], starts, steps=steps, lr=lr)
    ta_fit = learn_gm_multistart(xp[tr], xm[tr], starts, alpha=True, steps=steps, lr=lr)
    mlp, mlp_fit = learn_mlp(xp[tr], xm[tr], hidden=mlp_hidden, steps=steps, seed=seed)
    return {
        "columns": {"acc": columns[0], "sim": columns[1], "pp": columns[2]},
        "acc_form": ACC_FORMS.get(columns[0], f"per-sentence Acc = score column {columns[0]}"),
        "agreement": "strict share of pairs with f(y+) > f(y-) (Pang & Gimpel 2019 §3.3); ties are "
        "disagreements, counted in ties / tie_rate",
        "selection": "each fit: the iterate with the lowest training hinge loss (delta = 1) among those with "
        f"training tie rate <= {MAX_TIE_RATE} (ours: the unconstrained minimiser can zero almost "
        "every GM); GM fits: the lower-loss non-degenerate of two starts (Pang & Gimpel's t, and "
        "thresholds just beyond the data)",
        "overall_human_score": "mean of grammaticality, sentiment, topic (1-5); ties dropped",
        "ratings": report,
        "pairs": {
            "total": len(pairs),
            "with_metrics": int(keep.sum()),
            "train": int(tr.sum()),
            "held_out": int(te.sum()),
            "held_out_share": held_out,
            "excluded_systems": exclude_systems,
        },
        "default_t": {"t": list(DEFAULT_T), "agreement": agree(lambda x: score_gm(x, DEFAULT_T))},
        "learned_t": {**t_fit, "agreement": agree(lambda x: score_gm(x, t_fit["t"]))},
        "learned_t_alpha": {
            **ta_fit,
            "agreement": agree(lambda x: score_gm(x, ta_fit["t"], ta_fit["alpha"])),
        },
        "mlp": {**mlp_fit, "hidden": mlp_hidden, "agreement": agree(mlp.score), "state_dict": mlp_state(mlp)},
        **({"default_gm": default_gm} if default_gm else {}),
    }


def default_gm_agreement(pairs, joined, tr, seed: int = 0, n_resamples: int = 1000) -> dict | None:
    """The default GM's agreement with the preference pairs: each rewrite scored by its sentence-level joint
    score (the default GM is 100 [J - t_J]_+ / (1 - t_J) of their mean), on the training and held-out pairs, with
    a 95% percentile interval of the held-out agreement from resampling the held-out pairs (seeded). None when
    the score TSVs have no `joint` column."""
    import numpy as np

    if "joint" not in joined.columns:
        return None
    jp, jm, keep = pair_features(pairs, joined, ["joint"])
    jp, jm, tr = jp[:, 0], jm[:, 0], np.asarray(tr)[keep]
    te = ~tr
    rng = np.random.default_rng(seed)
    wins = (jp[te] > jm[te]).astype(float)
    draws = rng.integers(0, len(wins), size=(n_resamples, len(wins))) if len(wins) else None
    ci = np.percentile(wins[draws].mean(axis=1), [2.5, 97.5]).tolist() if draws is not None else None
    return {
        "score": "each rewrite's sentence-level joint score (style gain x content x acceptability)^(1/3)",
        "agreement": {
            "train": pair_agreement(jp[tr], jm[tr]),
            "held_out": {**pair_agreement(jp[te], jm[te]), "ci95": ci},
        },
    }
