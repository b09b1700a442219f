"""Transfer-model variants are data: `{model: cross_aligned | multi_decoder | style_embedding, lambda_...}`.

Decided once, here (torch-free): the weight of each loss term when a variant leaves it out, and which extra
inputs a term needs when its weight is > 0; the model families (FAMILIES; tst.models.registry.build_model builds one).
rules/common.smk (input functions), the config checks and tst.train.trainer all read these. A job resolves its
variant once into a Variant (Variant.of) and passes that down.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import import_module
from types import MappingProxyType

from tst.defaults import default


@dataclass(frozen=True)
class Family:
    """A transfer model family: where its class is (imported only when a model is built: this table is
    torch-free, the config checks read it) and the loss terms it cannot train. Its class implements
    tst.models.base.TransferModel and builds itself from the training settings (from_settings)."""

    cls: str  # "module:Class"
    without: dict = field(default_factory=dict)  # lambda name -> why the family cannot train that term

    def load(self):
        module, name = self.cls.split(":")
        return getattr(import_module(module), name)


NO_DISC2 = {"lambda_adv2": "the WGAN-GP discriminators D' of P&G eq. 7"}  # D' reads G's hidden states

# Pang & Gimpel 2019 §4 (M0-M7 use Shen et al.'s cross-aligned autoencoder); Fu et al. 2018 §3.1 / §3.2.
FAMILIES = {
    "cross_aligned": Family("tst.models.cross_aligned:CrossAligned"),
    "multi_decoder": Family("tst.models.fu_multi_decoder:MultiDecoder", NO_DISC2),
    "style_embedding": Family("tst.models.fu_style_embedding:StyleEmbedding", NO_DISC2),
}
MODELS = tuple(FAMILIES)

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

# Training settings read only by a term whose weight is > 0 (tst.train.trainer: the lambda_cyc warm-up and the
# cycle's first-pass dropout, the WGAN-GP pair's decay and penalty, the paraphrase batch and sample, eq. 6's
# normalization). A variant with that weight 0 never reads
# them, so they are not part of its cache key (the workflow's params) nor of its checkpoint signature:
# changing the lambda_cyc warm-up retrains M2-M7, not M0.
# Ours (neither paper): lambda_cyc is 0 for cyc_start epochs, then rises linearly to full over cyc_ramp epochs
# (tst.train.trainer.cyc_factor); their defaults are config.yaml's (tst.defaults).
CYC_WARMUP_DEFAULTS = {key: default("transfer", key) for key in ("cyc_start", "cyc_ramp")}
# Settings a variant may set for itself, over the transfer section's (e.g. M2 with and without the warm-up in
# one run: `M2w: {lambda_cyc: 5, cyc_start: 0.25, cyc_ramp: 0.25}`); they are training settings like the others
# (params, run signature, checkpoint), not part of the variant's identity (Variant, as_dict).
OWN_SETTINGS = ("cyc_start", "cyc_ramp")
GATED_SETTINGS = {
    "lambda_cyc": ("cyc_start", "cyc_ramp", "cyc_dropout"),
    "lambda_adv2": ("adv2_decay", "adv2_first_epoch", "gp_xi", "gp_at"),
    "lambda_lm": ("lm_norm",),
    "lambda_para": ("para_batch_size", "paraphrase_pairs"),
}


@dataclass(frozen=True)
class Variant:
    """A resolved variant, made once per job (Variant.of) and passed down: its model family, every lambda
    (LAMBDAS order, floats) and the training settings of the job (read-only; empty when only the variant
    matters, e.g. the config checks). v["lambda_cyc"], v["model"] read it as the resolved dict did."""

    model: str
    lambdas: tuple[tuple[str, float], ...]
    settings: Mapping = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, variant: Mapping | Variant, settings: Mapping | None = None) -> Variant:
        """`variant` ({model, lambda_...}, missing lambdas from LAMBDAS, model default cross_aligned) resolved;
        a Variant is returned as it is (with `settings`, when given, in place of its own). ValueError for a
        key that is neither `model` nor a lambda."""
        if isinstance(variant, Variant):
            return (
                variant if settings is None else replace(variant, settings=MappingProxyType(dict(settings)))
            )
        unknown = set(variant) - set(LAMBDAS) - {"model", *OWN_SETTINGS}
        if unknown:
            raise ValueError(
                f"unknown variant keys {sorted(unknown)}; allowed: model, {', '.join(LAMBDAS)}, "
                f"{', '.join(OWN_SETTINGS)}"
            )
        lambdas = {**LAMBDAS, **{k: float(v) for k, v in variant.items() if k in LAMBDAS}}
        return cls(
            variant.get("model", "cross_aligned"),
            tuple(lambdas.items()),
            MappingProxyType(dict(settings or {})),
        )

    def __getitem__(self, key: str):
        return self.model if key == "model" else dict(self.lambdas)[key]

    def __hash__(self) -> int:
        return hash((self.model, self.lambdas, json.dumps(dict(self.settings), sort_keys=True)))

    def as_dict(self) -> dict:
        """{"model": ..., every lambda}: what checkpoints, train.done.json and run signatures hold."""
        return {"model": self.model, **dict(self.lambdas)}


def resolve(variant: Mapping | Variant) -> dict:
    """The variant with every lambda filled in and its model named (default cross_aligned), as a dict, plus the
    settings it sets for itself (OWN_SETTINGS)."""
    return {**Variant.of(variant).as_dict(), **own_settings(variant)}


def own_settings(variant: Mapping | Variant) -> dict:
    """The OWN_SETTINGS a variant's config entry sets ({} for a resolved Variant, whose settings hold them)."""
    if isinstance(variant, Variant):
        return {}
    return {k: variant[k] for k in OWN_SETTINGS if k in variant}


def settings_read(settings: dict, variant: Mapping | Variant) -> dict:
    """The training settings a variant reads: `settings` with the variant's own settings over them, minus the
    GATED_SETTINGS of its zero-weight terms."""
    v = Variant.of(variant)
    unread = {k for lam, keys in GATED_SETTINGS.items() if v[lam] == 0 for k in keys}
    return {k: val for k, val in {**settings, **own_settings(variant)}.items() if k not in unread}


def cycle_off_until(settings: dict, variant: Mapping | Variant) -> float | None:
    """The epoch up to which a variant's lambda_cyc is still 0 (the warm-up): a checkpoint at or before it was
    trained without eq. 4, as its variant minus the cyclic term. None for a variant without the cyclic term."""
    if Variant.of(variant)["lambda_cyc"] == 0:
        return None
    return float(settings_read(settings, variant).get("cyc_start", CYC_WARMUP_DEFAULTS["cyc_start"]))


def needs(variant: Mapping | Variant) -> list[str]:
    """Extra inputs of a variant, in a fixed order: a subset of ["paraphrase", "lm", "attributes"]."""
    v = Variant.of(variant)
    return [need for key, need in NEEDS.items() if v[key] > 0]


def problems(variant: Mapping | Variant) -> list[str]:
    """What is wrong with a variant (empty when it can be trained): an unknown key or model, a term its model
    family cannot train (Family.without), lambda_rec 0."""
    try:
        v = Variant.of(variant)
    except ValueError as e:
        return [str(e)]
    out = []
    if v.model not in MODELS:
        out.append(f"model {v.model!r} is not one of {', '.join(MODELS)}")
    else:
        for lam, why in FAMILIES[v.model].without.items():
            if v[lam] > 0:
                able = [m for m, f in FAMILIES.items() if lam not in f.without]
                out.append(f"{lam} ({why}) needs model {' or '.join(able)}")
    if v["lambda_rec"] <= 0:
        out.append("lambda_rec must be > 0 (every model is trained as an autoencoder)")
    return out
