"""A transfer model by its variant: the variant names its family (tst.variants.Variant.model, one line of
tst.variants.FAMILIES), whose class is imported here, when a model is built, and builds itself from the training
settings (from_settings)."""

from __future__ import annotations

from tst.variants import FAMILIES, Variant, problems


def build_model(settings: dict, vocab_size: int, variant):
    """The variant's model (its `model`, default cross_aligned), freshly initialized. `variant`: a
    tst.variants.Variant or its dict; `settings` must hold every dimension the model reads
    (tst.train.trainer.DEFAULTS fills them in); the model never comes from the settings. ValueError for a
    variant that cannot be trained (tst.variants.problems)."""
    v = Variant.of(variant)
    bad = problems(v)
    if bad:
        raise ValueError(f"transfer variant {variant}: {'; '.join(bad)}")
    return FAMILIES[v.model].load().from_settings(settings, vocab_size, v)
