"""Transfer models by name: a variant names its model (tst.variants.MODELS); each builder makes it from the
training settings (the config's `transfer` section over tst.train.trainer.DEFAULTS), the vocabulary size and
the resolved variant (cross_aligned grows the WGAN critics D' only when lambda_adv2 > 0)."""

from __future__ import annotations

from tst import variants


def _cross_aligned(s: dict, vocab_size: int, v: dict):
    from tst.models.cross_aligned import CrossAligned

    return CrossAligned(
        vocab_size,
        s["emb_dim"],
        s["style_dim"],
        s["content_dim"],
        s["dropout"],
        s["disc_widths"],
        s["disc_filters"],
        s["disc2_widths"],
        use_disc2=v["lambda_adv2"] > 0,
        reverse_input=s.get("reverse_encoder", False),
        disc_negative_slope=s.get("disc_negative_slope", 0.0),
        embedding_init=s.get("embedding_init", "torch"),
    )  # the defaults: checkpoints from before the key


def _multi_decoder(s: dict, vocab_size: int, v: dict):
    from tst.models.fu_multi_decoder import MultiDecoder

    return MultiDecoder(vocab_size, s["emb_dim"], s["content_dim"], s["dropout"], s["cls_hidden"])


def _style_embedding(s: dict, vocab_size: int, v: dict):
    from tst.models.fu_style_embedding import StyleEmbedding

    return StyleEmbedding(
        vocab_size, s["emb_dim"], s["content_dim"], s["style_dim"], s["dropout"], s["cls_hidden"]
    )


# model name -> builder(settings, vocab_size, resolved variant); the names are tst.variants.MODELS
BUILDERS = {
    "cross_aligned": _cross_aligned,
    "multi_decoder": _multi_decoder,
    "style_embedding": _style_embedding,
}
assert tuple(BUILDERS) == variants.MODELS


def build_model(settings: dict, vocab_size: int, variant: dict):
    """The variant's model (its `model`, default cross_aligned), freshly initialized. `settings` must hold
    every dimension the model reads (tst.train.trainer.DEFAULTS fills them in); the model never comes from
    the settings. ValueError for a variant that cannot be trained (tst.variants.problems)."""
    bad = variants.problems(variant)
    if bad:
        raise ValueError(f"transfer variant {variant}: {'; '.join(bad)}")
    v = variants.resolve(variant)
    return BUILDERS[v["model"]](settings, vocab_size, v)
