"""Transfer model families by name: a variant names its model (tst.variants.Variant.model); a family is one line
of FAMILIES: where its class is (imported only when a model is built: this table is torch-free, the config
checks read it) and the loss terms it cannot train. Its class implements tst.models.base.TransferModel and
builds itself from the training settings (from_settings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module


@dataclass(frozen=True)
class Family:
    cls: str  # "module:Class"
    without: dict = field(default_factory=dict)  # lambda name -> why the family cannot train that term

    def load(self):
        module, name = self.cls.split(":")
        return getattr(import_module(module), name)


NO_DISC2 = {"lambda_adv2": "the WGAN-GP discriminators D' of P&G eq. 7"}  # D' reads G's hidden states

# Pang & Gimpel 2019 §4 (M0-M7: Shen et al.'s cross-aligned autoencoder); Fu et al. 2018 §3.1 / §3.2.
FAMILIES = {
    "cross_aligned": Family("tst.models.cross_aligned:CrossAligned"),
    "multi_decoder": Family("tst.models.fu_multi_decoder:MultiDecoder", NO_DISC2),
    "style_embedding": Family("tst.models.fu_style_embedding:StyleEmbedding", NO_DISC2),
}


def build_model(settings: dict, vocab_size: int, variant):
    """The variant's model (its `model`, default cross_aligned), freshly initialized. `variant`: a
    tst.variants.Variant or its dict; `settings` must hold every dimension the model reads
    (tst.train.trainer.DEFAULTS fills them in); the model never comes from the settings. ValueError for a
    variant that cannot be trained (tst.variants.problems)."""
    from tst.variants import Variant, problems

    v = Variant.of(variant)
    bad = problems(v)
    if bad:
        raise ValueError(f"transfer variant {variant}: {'; '.join(bad)}")
    return FAMILIES[v.model].load().from_settings(settings, vocab_size, v)
