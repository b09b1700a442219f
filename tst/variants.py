"""Transfer-model variants are data: `{model: cross_aligned | multi_decoder | style_embedding, lambda_...}`.

Decided once, here (torch-free): which models exist, the weight of each loss term when a variant leaves it
out, and which extra inputs a term needs when its weight is > 0. rules/common.smk (input functions), the
config checks and tst.train.trainer all read these.
"""

from __future__ import annotations

# Pang & Gimpel 2019 §4 (M0-M7 use Shen et al.'s cross-aligned autoencoder); Fu et al. 2018 §3.1 / §3.2.
MODELS = ("cross_aligned", "multi_decoder", "style_embedding")

# Weights of L_total (P&G §4.6); a variant lists the ones it changes.
LAMBDAS = {
    "lambda_rec": 1.0,
    "lambda_para": 0.0,
    "lambda_cyc": 0.0,
    "lambda_lm": 0.0,
    "lambda_adv": 1.0,
    "lambda_adv2": 0.0,
    "lambda_attr": 0.0,
}

# A term with weight > 0 needs this input besides the corpus: paraphrase pairs (eq. 5), the two frozen style
# LMs (eq. 6), Yu et al.'s attribute lists of the training sentences (§5.2).
NEEDS = {"lambda_para": "paraphrase", "lambda_lm": "lm", "lambda_attr": "attributes"}

# Training settings read only by a term whose weight is > 0 (tst.train.trainer: the lambda_cyc warm-up, the
# WGAN-GP pair's decay and penalty, the paraphrase batch and sample). A variant with that weight 0 never reads
# them, so they are not part of its cache key (the workflow's params) nor of its checkpoint signature:
# changing the lambda_cyc warm-up retrains M2-M7, not M0.
# Ours (neither paper): lambda_cyc is 0 for cyc_start epochs, then rises linearly to full over cyc_ramp epochs
# (tst.train.trainer.cyc_factor); the trainer's defaults.
CYC_WARMUP_DEFAULTS = {"cyc_start": 1.0, "cyc_ramp": 1.0}
GATED_SETTINGS = {
    "lambda_cyc": ("cyc_start", "cyc_ramp"),
    "lambda_adv2": ("adv2_decay", "gp_xi", "gp_at"),
    "lambda_para": ("para_batch_size", "paraphrase_pairs"),
}


def resolve(variant: dict) -> dict:
    """The variant with every lambda filled in and its model named (default cross_aligned)."""
    unknown = set(variant) - set(LAMBDAS) - {"model"}
    if unknown:
        raise ValueError(f"unknown variant keys {sorted(unknown)}; allowed: model, {', '.join(LAMBDAS)}")
    out = {"model": variant.get("model", "cross_aligned"), **LAMBDAS}
    out.update({k: float(v) for k, v in variant.items() if k in LAMBDAS})
    return out


def settings_read(settings: dict, variant: dict) -> dict:
    """The training settings a variant reads: `settings` minus the GATED_SETTINGS of its zero-weight terms."""
    v = resolve(variant)
    unread = {k for lam, keys in GATED_SETTINGS.items() if v[lam] == 0 for k in keys}
    return {k: val for k, val in settings.items() if k not in unread}


def cycle_off_until(settings: dict, variant: dict) -> float | None:
    """The epoch up to which a variant's lambda_cyc is still 0 (the warm-up): a checkpoint at or before it was
    trained without eq. 4, as its variant minus the cyclic term. None for a variant without the cyclic term."""
    if resolve(variant)["lambda_cyc"] == 0:
        return None
    return float(settings.get("cyc_start", CYC_WARMUP_DEFAULTS["cyc_start"]))


def needs(variant: dict) -> list[str]:
    """Extra inputs of a variant, in a fixed order: a subset of ["paraphrase", "lm", "attributes"]."""
    v = resolve(variant)
    return [need for key, need in NEEDS.items() if v[key] > 0]


def problems(variant: dict) -> list[str]:
    """What is wrong with a variant (empty when it can be trained)."""
    try:
        v = resolve(variant)
    except ValueError as e:
        return [str(e)]
    out = []
    if v["model"] not in MODELS:
        out.append(f"model {v['model']!r} is not one of {', '.join(MODELS)}")
    elif v["lambda_adv2"] > 0 and v["model"] != "cross_aligned":
        out.append("lambda_adv2 (the WGAN-GP discriminators D' of P&G eq. 7) needs model cross_aligned")
    if v["lambda_rec"] <= 0:
        out.append("lambda_rec must be > 0 (every model is trained as an autoencoder)")
    return out
