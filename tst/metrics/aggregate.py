"""Learning an aggregate of (Acc, Sim, PP) from human preference pairs (y+, y-).

Forms (each scores one rewrite from its per-sentence Acc, Sim, PP; acc/sim fractions, pp raw):
  * "gm":       GM_t of Pang & Gimpel (2019) eq. 1, learning t = (t1..t4);
  * "gm_alpha": G_{t,alpha} of Pang (2019) Sec. 4.1, per-factor exponents alpha (kept > 0) and t;
  * "mlp":      a small MLP f(Acc, Sim, log PP) (Pang 2019 Sec. 4.1, "a very small neural network").
All are trained with the pairwise hinge loss of Pang & Gimpel (2019) Sec. 3.3,
    L = max(0, -f(y+) + f(y-) + delta),  delta = 1,
averaged over pairs, full batch, Adam; the parameters returned are the iterate with the lowest training
hinge loss (the minimiser of §3.3's objective) among those that leave at most MAX_TIE_RATE of the training
pairs tied (ours, not the paper's: on noisy per-sentence preferences the unconstrained minimiser zeroes almost
every GM, because a tied pair costs exactly delta while a wrongly ordered one costs more; on a synthetic case
with 10% label noise it had held-out agreement 0.077 at tie rate 0.91). Quality = agreement, as Pang & Gimpel's 86%: the plain
share of pairs f orders like the humans, f(y+) > f(y-) strictly; a tie in f is a disagreement and the
tie rate is reported beside it (`agreement_ties_half` counts ties one half, for comparison only).

Per-sentence inputs: Acc is the CNN's probability of the target style (score key `acc_prob`; graded, so
GM does not drop to 0 for every misclassified sentence; the 0/1 decision `acc` may be chosen instead and
is then named so in aggregate.json), Sim the sentence cosine, PP the sentence perplexity.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import torch
from torch import nn

from tst.metrics.gm import DEFAULT_T, gm_array, gm_torch
from tst.optim import Adam

MAX_TIE_RATE = 0.5  # a fit that cannot order more than half of its training pairs is degenerate


def pair_agreement(score_plus, score_minus) -> dict:
    """`agreement`: share of pairs with f(y+) > f(y-) strictly (Pang & Gimpel's percentage); `ties`, `tie_rate`:
    pairs with f(y+) == f(y-); `agreement_ties_half`: ties counted one half (not the paper's number)."""
    sp, sm = np.asarray(score_plus, float), np.asarray(score_minus, float)
    n = len(sp)
    wins, ties = int((sp > sm).sum()), int((sp == sm).sum())
    nan = float("nan")
    return {
        "n": n,
        "agreement": wins / n if n else nan,
        "ties": ties,
        "tie_rate": ties / n if n else nan,
        "agreement_ties_half": (wins + 0.5 * ties) / n if n else nan,
    }


def _tensors(x) -> tuple[torch.Tensor, ...]:
    x = torch.as_tensor(np.asarray(x, dtype=np.float64))
    return x[:, 0], x[:, 1], x[:, 2]


def _hinge(fp: torch.Tensor, fm: torch.Tensor, delta: float) -> torch.Tensor:
    return torch.relu(-fp + fm + delta).mean()


def _agree(fp: torch.Tensor, fm: torch.Tensor) -> float:
    return (fp > fm).double().mean().item()


def learn_gm(
    x_plus,
    x_minus,
    t0=DEFAULT_T,
    alpha: bool = False,
    delta: float = 1.0,
    steps: int = 500,
    lr: float = 0.5,
    alpha_lr: float = 0.01,
    max_tie_rate: float = MAX_TIE_RATE,
) -> dict:
    """Learn t (and alpha when `alpha`) from pairs; x_* are [n, 3] arrays of (acc, sim, pp).

    Adam on t in the metric's own units (percent points, perplexity), so lr is in those units per step;
    alpha = exp(log_alpha) starts at 1. The returned parameters are the iterate with the lowest training
    hinge loss (Pang & Gimpel §3.3 choose t to minimise it), not the last one (Adam may overshoot), among
    the iterates whose training tie rate (share of pairs f cannot order) is <= max_tie_rate: the hinge's
    degenerate point, t that zeroes every GM, has loss exactly delta and no gradient. When no iterate
    qualifies, the unconstrained minimiser is returned with "degenerate": True.
    Returns {"t", "alpha" (None without), "loss", "train_agreement" (strict), "train_tie_rate", "best_step",
    "steps", "degenerate"}.
    """
    ap, sp, pp_ = _tensors(x_plus)
    am, sm, pm = _tensors(x_minus)
    t = torch.tensor(t0, dtype=torch.float64, requires_grad=True)
    log_alpha = torch.zeros(4, dtype=torch.float64, requires_grad=alpha)
    groups = [{"params": [t], "lr": lr}]
    if alpha:
        groups.append({"params": [log_alpha], "lr": alpha_lr})
    opt = Adam(groups)
    best, best_any = None, None
    for step in range(steps + 1):
        a = log_alpha.exp() if alpha else None
        fp, fm = gm_torch(ap, sp, pp_, t, a), gm_torch(am, sm, pm, t, a)
        loss = _hinge(fp, fm, delta)
        tie_rate = (fp == fm).double().mean().item()
        here = (
            loss.item(),
            step,
            t.detach().clone(),
            log_alpha.detach().exp().clone(),
            _agree(fp.detach(), fm.detach()),
            tie_rate,
        )
        if best_any is None or here[0] < best_any[0]:
            best_any = here
        if tie_rate <= max_tie_rate and (best is None or here[0] < best[0]):
            best = here
        if step == steps:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    degenerate = best is None
    loss_best, best_step, t_best, a_best, agree, tie_rate = best_any if degenerate else best
    return {
        "t": t_best.tolist(),
        "alpha": a_best.tolist() if alpha else None,
        "loss": loss_best,
        "train_agreement": agree,
        "train_tie_rate": tie_rate,
        "best_step": best_step,
        "steps": steps,
        "degenerate": degenerate,
    }


def wide_start(x_plus, x_minus) -> tuple[float, float, float, float]:
    """A start where every rewrite is alive (all four factors > 0): thresholds 1 unit beyond the data.
    Useful when the data's scale differs from Pang & Gimpel's (e.g. another LM's perplexities)."""
    x = np.concatenate([np.asarray(x_plus, float), np.asarray(x_minus, float)])
    return (100 * x[:, 0].min() - 1, 100 * x[:, 1].min() - 1, x[:, 2].max() + 1, x[:, 2].min() - 1)


def learn_gm_multistart(x_plus, x_minus, starts, **kw) -> dict:
    """learn_gm from each start; the fit with the lowest training hinge loss among the non-degenerate ones
    (all of them when every fit is degenerate), with its "start" and, under "fits", every start's (start, t,
    alpha, loss, train_agreement, train_tie_rate, degenerate)."""
    fits = [{**learn_gm(x_plus, x_minus, t0=t0, **kw), "start": [float(v) for v in t0]} for t0 in starts]
    keys = ("start", "t", "alpha", "loss", "train_agreement", "train_tie_rate", "degenerate")
    return {**select_fit(fits), "fits": [{k: f[k] for k in keys} for f in fits]}


def select_fit(fits: list[dict]) -> dict:
    """The lowest-"loss" fit among those not "degenerate"; among all when none qualifies."""
    return min([f for f in fits if not f["degenerate"]] or fits, key=lambda f: f["loss"])


def score_gm(x, t=DEFAULT_T, alpha=None) -> np.ndarray:
    """G_{t,alpha} of every row of x [n, 3]; alpha None = plain GM (eq. 1)."""
    x = np.asarray(x, dtype=np.float64)
    if alpha is None:
        return gm_array(x[:, 0], x[:, 1], x[:, 2], t)
    with torch.no_grad():
        return gm_torch(
            *_tensors(x), torch.tensor(t, dtype=torch.float64), torch.tensor(alpha, dtype=torch.float64)
        ).numpy()


class MLPAggregator(nn.Module):
    """f(Acc, Sim, log PP): standardize -> Linear(3, h) -> tanh -> Linear(h, 1)."""

    def __init__(self, hidden: int = 8):
        super().__init__()
        self.register_buffer("mean", torch.zeros(3, dtype=torch.float64))
        self.register_buffer("std", torch.ones(3, dtype=torch.float64))
        self.net = nn.Sequential(nn.Linear(3, hidden), nn.Tanh(), nn.Linear(hidden, 1)).double()

    @staticmethod
    def features(x) -> torch.Tensor:
        x = torch.as_tensor(np.asarray(x, dtype=np.float64)).clone()
        x[:, 2] = torch.log(x[:, 2].clamp_min(1.0))  # perplexity on a log scale
        return x

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        return self.net((feats - self.mean) / self.std).squeeze(-1)

    def score(self, x) -> np.ndarray:
        with torch.no_grad():
            return self(self.features(x)).numpy()


def learn_mlp(
    x_plus,
    x_minus,
    hidden: int = 8,
    delta: float = 1.0,
    steps: int = 500,
    lr: float = 0.01,
    weight_decay: float = 1e-3,
    seed: int = 0,
) -> tuple[MLPAggregator, dict]:
    """Train MLPAggregator on pairs with the same hinge loss, keeping the iterate with the lowest training
    loss; returns (model, {"loss", "train_agreement" (strict), "best_step", "steps"})."""
    torch.manual_seed(seed)
    model = MLPAggregator(hidden)
    fp, fm = model.features(x_plus), model.features(x_minus)
    both = torch.cat([fp, fm])
    model.mean.copy_(both.mean(0))
    model.std.copy_(both.std(0).clamp_min(1e-6))
    opt = Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    best = None
    for step in range(steps + 1):
        sp, sm = model(fp), model(fm)
        loss = _hinge(sp, sm, delta)
        if best is None or loss.item() < best[0]:
            best = (loss.item(), step, copy.deepcopy(model.state_dict()), _agree(sp.detach(), sm.detach()))
        if step == steps:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    loss_best, best_step, state, agree = best
    model.load_state_dict(state)
    return model, {"loss": loss_best, "train_agreement": agree, "best_step": best_step, "steps": steps}


def mlp_state(model: MLPAggregator) -> dict:
    """Plain-list state for JSON (no pickle)."""
    return {k: v.tolist() for k, v in model.state_dict().items()}


def pair_features(pairs: pd.DataFrame, joined: pd.DataFrame, columns=("acc_prob", "sim", "pp_joint")):
    """(x_plus, x_minus, keep) for preference pairs: per-sentence (acc, sim, pp) of each side, looked up in
    `joined` (ratings rows with metric columns, tst.human.correlation.join_metrics) by (system, source,
    source_style). `keep` marks pairs whose two sides both have finite values; x_* hold those pairs only."""
    look = joined.set_index(["system", "source", "source_style"])[list(columns)].apply(
        pd.to_numeric, errors="coerce"
    )
    look = look[~look.index.duplicated()]

    def side(s: str) -> np.ndarray:
        idx = pd.MultiIndex.from_arrays([pairs[f"system_{s}"], pairs["source"], pairs["source_style"]])
        return look.reindex(idx).to_numpy(np.float64)

    xp, xm = side("plus"), side("minus")
    keep = np.isfinite(xp).all(1) & np.isfinite(xm).all(1)
    return xp[keep], xm[keep], keep
