"""Adjusted geometric mean GM_t of Acc, Sim and PP (Pang & Gimpel 2019, eq. 1).

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


# ---- GM calibrated to this pipeline's evaluators (ours; the default `gm`) --------------------------------
#
#     GM_cal = ([100 Acc - t_Acc]_+ * [100 C - t_C]_+ * 100 [ln t_PP - ln PP]_+ / ln t_PP)^(1/3)
#
# Pang & Gimpel's t were learned for their 300d Sim and their LM; with other evaluators they mean something
# else (idf-GloVe-50d Sim of unrelated Yelp sentences is ~0.78, above their t2 = 71; below PP 30 their PP
# factor rises with PP, so word-order damage raised their GM). Each threshold here is the score of a sanity
# baseline (tst.baselines) under this dataset's own evaluators, so that baseline scores 0 on that factor:
#   t_Acc = 100 Acc of the copy baseline (`source`): changing the style no more often than copying gets 0;
#   t_C   = 100 x the highest content score C of the content-free baselines (random_target, fixed_target):
#           content no closer to the source than an unrelated sentence's gets 0;
#   t_PP  = PP of the `shuffled` baseline (the source's words in random order): fluency no better than
#           destroyed word order gets 0. The factor is the share (in %) of that text's cross-entropy per token
#           (ln t_PP, nats) that the output's (ln PP) stays below: 100 at PP 1, 0 at t_PP, falling as PP rises
#           over the whole range (no lower t4); on a log scale because PP spans orders of magnitude.
# All three factors are in 0-100, so GM_cal is too.
CALIBRATION_BASELINES = {
    "acc": ("source",),
    "content": ("random_target", "fixed_target"),
    "pp": ("shuffled",),
}
CALIBRATION_RULE = (
    "t_Acc = 100 Acc(copy baseline `source`); t_C = 100 max C(random_target, fixed_target); "
    "t_PP = PP(shuffled baseline)"
)


def calibrate(baseline_scores: dict[str, dict], content_key: str, pp_key: str = "pp_joint") -> dict:
    """The calibrated thresholds from the baselines' score-file `metrics` dicts (system -> metrics): which
    baseline set each one and its value. ValueError naming what is missing (a baseline not run, a metric
    skipped)."""

    def value(system: str, key: str) -> float:
        m = (baseline_scores.get(system) or {}).get(key) or {}
        if m.get("score") is None:
            raise ValueError(
                f"GM calibration needs {key} of the baseline {system!r}; it is missing from its score file "
                f"(is {system!r} in baselines.run, and was {key} skipped?)"
            )
        return float(m["score"])

    content = {s: value(s, content_key) for s in CALIBRATION_BASELINES["content"] if s in baseline_scores}
    if not content:
        raise ValueError(
            "GM calibration needs the score file of random_target or fixed_target (config baselines.run)"
        )
    (acc_from,), (pp_from,) = CALIBRATION_BASELINES["acc"], CALIBRATION_BASELINES["pp"]
    content_from = max(content, key=lambda s: (content[s], s))
    return {
        "t": [100.0 * value(acc_from, "acc"), 100.0 * content[content_from], value(pp_from, pp_key)],
        "keys": ["acc", content_key, pp_key],
        "from": [acc_from, content_from, pp_from],
        "rule": CALIBRATION_RULE,
    }


def check_calibration(obj, path=layout.CALIBRATION_FILE) -> dict:
    """`obj` when it has the layout calibrate writes ({"t": [3 numbers], "keys": [3 metric keys], "from":
    [3 systems], "rule": text}); else ValueError naming the file, what is wrong and the fix."""

    def bad(what: str):
        raise ValueError(
            f"{path}: {what}; expected the GM thresholds file rule gm_calibration writes "
            '({"t": [t1, t2, t3], "keys": [3 metric keys], "from": [3 baselines], "rule": text}): rebuild it'
        )

    if not isinstance(obj, dict):
        bad(f"a JSON {type(obj).__name__}, not an object")
    for key in ("t", "keys"):
        if not isinstance(obj.get(key), list) or len(obj[key]) != 3:
            bad(f"{key!r} is not a list of 3" if key in obj else f"no key {key!r}")
    if not isinstance(obj.get("from"), list):
        bad('no list "from"')
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in obj["t"]):
        bad(f'"t" holds a value that is not a number: {obj["t"]!r}')
    if not all(isinstance(x, str) for x in obj["keys"]):
        bad(f'"keys" holds a value that is not a metric key: {obj["keys"]!r}')
    if not isinstance(obj.get("rule"), str):
        bad('no text "rule"')
    return obj


def gm_calibrated(acc: float, content: float, pp: float, t) -> float:
    """GM_cal for one corpus (acc, content in [0, 1]; pp raw, >= 1; t = [t_Acc, t_C, t_PP], t_PP > 1)."""
    t_acc, t_c, t_pp = (float(x) for x in t)
    if t_pp <= 1.0:
        raise ValueError(f"t_PP must be above 1 (the shuffled baseline's perplexity), not {t_pp}")
    a = max(100.0 * acc - t_acc, 0.0)
    c = max(100.0 * content - t_c, 0.0)
    p = max(100.0 * (math.log(t_pp) - math.log(pp)) / math.log(t_pp), 0.0)
    return float((a * c * p) ** (1.0 / 3.0))


def gm_calibrated_result(acc: float, content: float, pp: float, calibration: dict) -> MetricResult:
    """The score-file entry `gm`: GM_cal with the dataset's calibrated thresholds (calibrate)."""
    t = [float(x) for x in calibration["t"]]
    keys = calibration["keys"]
    t_text = ", ".join(f"{k} {v:.4g}" for k, v in zip(keys, t))
    return MetricResult(
        "gm",
        f"GM calibrated to this dataset's evaluators (ours): ([100 {keys[0]} - t1]_+ [100 {keys[1]} - t2]_+ "
        f"100 [ln t3 - ln {keys[2]}]_+ / ln t3)^(1/3), t = ({t_text}): {calibration['rule']}",
        gm_calibrated(acc, content, pp, t),
        [],
        True,
        {"t": t, "keys": list(keys), "from": list(calibration["from"])},
    )


# ---- registry rows (tst.metrics.registry): derived from stored corpus scores ----

# The content score of the default (calibrated) GM: decided on content separation (tst.validity; docs).
GM_CONTENT = "sbert_all_minilm_l6_v2"


def _gm_pg(values: dict, gm_t, calibration):
    return gm_result(values["acc"], values["sim"], values["pp_joint"], gm_t)


def _gm(values: dict, gm_t, calibration):
    if not calibration:
        raise Skip(
            f"no calibrated GM thresholds: the workflow writes {layout.calibration('<dataset>')} "
            "(rule gm_calibration); tst score reads it from the dataset folder or --gm-calibration"
        )
    if list(calibration["keys"]) != ["acc", GM_CONTENT, "pp_joint"]:
        raise Skip(
            f"GM thresholds were calibrated for {calibration['keys']}, not acc, {GM_CONTENT}, pp_joint"
        )
    return gm_calibrated_result(values["acc"], values[GM_CONTENT], values["pp_joint"], calibration)


ROWS = [
    Metric(
        "gm",
        "GM",
        "geometric mean",
        "overall",
        True,
        110,
        derived_from=("acc", GM_CONTENT, "pp_joint"),
        digits=2,
        derive=_gm,
        note="(ours: thresholds calibrated on the sanity baselines, --gm-calibration)",
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
