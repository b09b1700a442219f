"""The two GMs: gm_pg, the adjusted geometric mean GM_t of Acc, Sim and PP (Pang & Gimpel 2019, eq. 1), and the
default gm, the joint score above the sanity baselines (ours; below, "the default GM").

Pang & Gimpel's eq. 1:

    GM_t(q) = ([100 Acc - t1]_+ * [100 Sim - t2]_+ * min{[t3 - PP]_+, [PP - t4]_+})^(1/3)

Scales: `acc` and `sim` are fractions in [0, 1] exactly as eq. 1 and Table 2 print them (0.818, 0.719);
the 100x happens here. `pp` is a raw perplexity (37.3). t4 < 0 punishes abnormally small perplexities.
The same formula serves a corpus (corpus Acc, mean Sim, corpus PP, as in Table 2) or one sentence.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from tst import layout
from tst.defaults import default
from tst.metrics.base import Metric, MetricResult, Skip

if TYPE_CHECKING:  # torch is imported by gm_torch only: the scorer and the report stay torch-free
    import torch

# Pang & Gimpel's t learned from 300 human preferences (Sec. 3.3), written once: config.yaml score.gm_t
DEFAULT_T = tuple(float(x) for x in default("score", "gm_t"))


def gm(acc: float, sim: float, pp: float, t=DEFAULT_T) -> float:
    """Eq. 1 for one sentence or one corpus (acc, sim in [0, 1]; pp raw)."""
    t1, t2, t3, t4 = t
    a = max(100.0 * acc - t1, 0.0)
    s = max(100.0 * sim - t2, 0.0)
    p = min(max(t3 - pp, 0.0), max(pp - t4, 0.0))
    return float((a * s * p) ** (1.0 / 3.0))


def gm_thresholds(t=DEFAULT_T) -> tuple[float, float, float, float]:
    """t as four floats (a config may give ints; the variant string always prints floats)."""
    t = tuple(float(x) for x in t)
    if len(t) != 4:
        raise ValueError(f"GM needs four thresholds t1..t4, not {list(t)}")
    return t


def gm_result(acc: float, sim: float, pp: float, t=DEFAULT_T) -> MetricResult:
    """The score-file entry `gm`: eq. 1 on a corpus' Acc, Sim and PP (joint LM) with thresholds t."""
    t = gm_thresholds(t)
    return MetricResult(
        "gm",
        f"Pang & Gimpel 2019 eq. 1 on corpus Acc, Sim, PP (joint LM), t={list(t)}",
        float(gm(acc, sim, pp, t=t)),
        [],
        True,
        {"t": list(t)},
    )


def gm_array(acc, sim, pp, t=DEFAULT_T) -> np.ndarray:
    """Eq. 1 elementwise over arrays (numpy)."""
    t1, t2, t3, t4 = t
    acc, sim, pp = (np.asarray(x, dtype=float) for x in (acc, sim, pp))
    a = np.maximum(100.0 * acc - t1, 0.0)
    s = np.maximum(100.0 * sim - t2, 0.0)
    p = np.minimum(np.maximum(t3 - pp, 0.0), np.maximum(pp - t4, 0.0))
    return np.cbrt(a * s * p)


def gm_torch(
    acc: torch.Tensor, sim: torch.Tensor, pp: torch.Tensor, t: torch.Tensor, alpha: torch.Tensor | None = None
) -> torch.Tensor:
    """Eq. 1 in torch, differentiable in t (and in the per-factor exponents alpha of Pang 2019, Sec. 4.1):

        G_{t,alpha} = ([100 Acc - t1]_+^a1 * [100 Sim - t2]_+^a2 * min{[t3 - PP]_+^a3, [PP - t4]_+^a4})^(1/3)

    alpha=None means all exponents 1 (plain GM; values equal gm_array). Where a factor is <= 0 the result
    is exactly 0 with zero gradient, as with [.]_+; factors are clamped away from 0 only inside the
    unused branch so no NaN gradient leaks from x^(1/3) or x^a at 0.
    """
    import torch

    tiny = 1e-12
    a = 100.0 * acc - t[0]
    s = 100.0 * sim - t[1]
    hi = t[2] - pp
    lo = pp - t[3]
    alive = (a > 0) & (s > 0) & (hi > 0) & (lo > 0)
    a, s, hi, lo = (x.clamp_min(tiny) for x in (a, s, hi, lo))
    if alpha is not None:
        a, s, hi, lo = a ** alpha[0], s ** alpha[1], hi ** alpha[2], lo ** alpha[3]
    g = (a * s * torch.minimum(hi, lo)) ** (1.0 / 3.0)
    return torch.where(alive, g, torch.zeros_like(g))


# ---- the default GM (ours): the sentence-level joint score above the sanity baselines -----------------------
#
#     GM = 100 [J - t_J]_+ / (1 - t_J),   J = (1/N) sum_i (s_i c_i f_i)^(1/3)      (tst.metrics.joint)
#
# J scores each output on its own (style gain x content nearer its own source than others x acceptability), so
# an output that did not change style adds 0 whatever it keeps: copying the source for any share of the outputs
# never raises J. t_J is the highest J of the sanity baselines run beside the systems (the copy, the source's
# words shuffled, a random or a fixed target-style sentence, an empty line) and of the most any fixed output
# sentence per style can reach (tst.metrics.joint.fixed_sentence_bound): each of them scores exactly 0 and an
# honest system scores by how far it rises above them, on a 0-100 scale. Pang & Gimpel's eq. 1 with their t
# (learned for their evaluators) stays as gm_pg. Chosen on Li et al.'s Yelp ratings by the rule declared in
# docs/style_and_gm.md.
GM_INPUT = "joint"
# J's three factors (tst.metrics.joint), the leaderboard's too
GM_FACTORS = ("style", "content", "acceptability")
GM_PARTS = (GM_INPUT, *GM_FACTORS)  # the metrics whose variants make the default GM's form (tst.signature)
CALIBRATION_BASELINES = ("source", "shuffled", "random_target", "fixed_target", "empty")
CALIBRATION_NEEDS_ONE_OF = ("random_target", "fixed_target")  # a fluent, on-style sentence with no content
CALIBRATION_RULE = (
    "t_J = the highest J of the sanity baselines (copy, shuffled, random_target, fixed_target, empty) and of "
    "the bound on any fixed sentence per style"
)
FIXED_BOUND = "fixed-sentence bound"  # calibrate's "from" when the bound is the highest


def calibrate(baseline_scores: dict[str, dict], key: str = GM_INPUT) -> dict:
    """The default GM's threshold from the baselines' score-file `metrics` dicts (system -> metrics): the highest
    J among those run, and which baseline set it. ValueError naming what is missing."""
    values = {}
    for system in CALIBRATION_BASELINES:
        if system not in baseline_scores:
            continue
        m = (baseline_scores.get(system) or {}).get(key) or {}
        if m.get("score") is None:
            raise ValueError(
                f"GM calibration needs {key} of the baseline {system!r}; it is missing from its score file "
                f"(was {key} skipped? its score file says why under skipped)"
            )
        values[system] = float(m["score"])
    if not any(s in values for s in CALIBRATION_NEEDS_ONE_OF):
        raise ValueError(
            f"GM calibration needs the score file of {' or '.join(CALIBRATION_NEEDS_ONE_OF)} (config baselines.run)"
        )
    bounds = [(baseline_scores[s][key].get("details") or {}).get("fixed_sentence_bound") for s in values]
    if any(b is None for b in bounds):
        raise ValueError(
            f"GM calibration needs the fixed-sentence bound in the baselines' {key} details; their score files "
            "predate it: rescore them"
        )
    top = max(values, key=lambda s: (values[s], s))
    if max(bounds) > values[top]:
        return {"t": [float(max(bounds))], "keys": [key], "from": [FIXED_BOUND], "rule": CALIBRATION_RULE}
    return {"t": [values[top]], "keys": [key], "from": [top], "rule": CALIBRATION_RULE}


def for_test_set(calibration: dict | None, joint_details: dict | None) -> dict | None:
    """The calibration a score of another test set uses (`tst score`): its t_J raised to that set's own
    fixed-sentence bound when the bound is higher (a small set lets a fixed sentence reach more of its sources),
    so a fixed sentence per style scores GM 0 on any set."""
    bound = (joint_details or {}).get("fixed_sentence_bound")
    if not calibration or bound is None or bound <= float(calibration["t"][0]):
        return calibration
    return {**calibration, "t": [float(bound)], "from": [FIXED_BOUND]}


def check_calibration(obj, path=layout.CALIBRATION_FILE) -> dict:
    """`obj` when it has the layout calibrate writes ({"t": [t_J], "keys": ["joint"], "from": [the baseline],
    "rule": text}); else ValueError naming the file, what is wrong and the fix."""

    def bad(what: str):
        raise ValueError(
            f"{path}: {what}; expected the GM thresholds file rule gm_calibration writes "
            '({"t": [t_J], "keys": ["joint"], "from": [the baseline], "rule": text}): rebuild it'
        )

    if not isinstance(obj, dict):
        bad(f"a JSON {type(obj).__name__}, not an object")
    for key in ("t", "keys"):
        if not isinstance(obj.get(key), list) or len(obj[key]) != 1:
            bad(f"{key!r} is not a list of 1" if key in obj else f"no key {key!r}")
    if not isinstance(obj.get("from"), list):
        bad('no list "from"')
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in obj["t"]):
        bad(f'"t" holds a value that is not a number: {obj["t"]!r}')
    t_j = float(obj["t"][0])
    if not (math.isfinite(t_j) and 0.0 <= t_j < 1.0):
        bad(f'"t": t_J = {obj["t"][0]!r} is not a number in [0, 1) (J is a share of sentences)')
    if obj["keys"] != [GM_INPUT]:
        bad(f'"keys" is {obj["keys"]!r}, not [{GM_INPUT!r}] (the default GM thresholds the joint score J)')
    if not isinstance(obj.get("rule"), str):
        bad('no text "rule"')
    return obj


def gm_calibrated(j: float, t_j: float) -> float:
    """The default GM: 100 [J - t_J]_+ / (1 - t_J) (J, t_J in [0, 1]); 0 when t_J = 1 (no J is above it)."""
    t_j = float(t_j)
    if not 0.0 <= t_j <= 1.0:
        raise ValueError(f"t_J must be in [0, 1], not {t_j}")
    return float(100.0 * max(float(j) - t_j, 0.0) / (1.0 - t_j)) if t_j < 1.0 else 0.0


def gm_calibrated_result(j: float, calibration: dict) -> MetricResult:
    """The score-file entry `gm`: the default GM with the dataset's calibrated threshold (calibrate)."""
    t = float(calibration["t"][0])
    return MetricResult(
        "gm",
        f"100 [J - t_J]_+ / (1 - t_J), J = the sentence-level joint score (ours), t_J = {t:.4g}: "
        f"{calibration['rule']}",
        gm_calibrated(j, t),
        [],
        True,
        {"t": [t], "keys": list(calibration["keys"]), "from": list(calibration["from"])},
    )


# ---- registry rows (tst.metrics.registry): derived from stored corpus scores ----

# The content score the leaderboard shows beside the default GM's factors: decided on content separation
# (tst.validity; docs/validity.md); the GM's content factor (tst.metrics.joint) is built on it.
GM_CONTENT = "sbert_all_minilm_l6_v2"


def _gm_pg(values: dict, gm_t, calibration):
    """Pang & Gimpel 2019's eq. 1: GM_t = ([100 Acc - t1]_+ [100 Sim - t2]_+ min{[t3 - PP]_+, [PP - t4]_+})^(1/3),
    t = score.gm_t (their thresholds, learned from 300 human preferences for their evaluators)."""
    return gm_result(values["acc"], values["sim"], values["pp_joint"], gm_t)


def _gm(values: dict, gm_t, calibration):
    """The default GM (ours): GM = 100 [J - t_J]_+ / (1 - t_J), J the sentence-level joint score (tst.metrics.joint),
    t_J calibrated on the sanity baselines run beside the systems and the fixed-sentence bound (calibrate), so that
    each of them scores 0."""
    if not calibration:
        raise Skip(
            f"no calibrated GM threshold: the workflow writes {layout.calibration('<dataset>')} "
            "(rule gm_calibration); tst score reads it from the dataset folder or --gm-calibration"
        )
    if list(calibration["keys"]) != [GM_INPUT]:
        raise Skip(f"the GM threshold was calibrated for {calibration['keys']}, not {GM_INPUT}: rebuild it")
    return gm_calibrated_result(values[GM_INPUT], calibration)


ROWS = [
    Metric(
        "gm",
        "GM",
        "geometric mean",
        "overall",
        True,
        110,
        derived_from=(GM_INPUT,),
        digits=2,
        derive=_gm,
        note="(ours: the joint score above the sanity baselines, --gm-calibration)",
        vs_human=False,
    ),
    Metric(
        "gm_pg",
        "GM-P&G",
        "geometric mean",
        "overall",
        True,
        120,
        derived_from=("acc", "sim", "pp_joint"),
        digits=2,
        derive=_gm_pg,
        note="(Pang & Gimpel eq. 1, thresholds --gm-t)",
        vs_human=False,
    ),
]
