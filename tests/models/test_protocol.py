"""Models behind one protocol: every registered family is a TransferModel, Fu et al.'s two models
share their base class, a job resolves its variant once into a frozen Variant, and the refactor left training
unchanged (a few steps' losses, final weights and transfers, computed with the code before it, main at
ffcaf18)."""

import csv
import dataclasses
import hashlib
import tempfile
from pathlib import Path

import pytest
import torch

from tst.models.base import TransferModel
from tst.models.fu import FuModel
from tst.models.fu_multi_decoder import MultiDecoder
from tst.models.fu_style_embedding import StyleEmbedding
from tst.models.registry import build_model
from tst.train.step import G_TERMS, TERMS
from tst.train.trainer import DEFAULTS, train, train_files
from tst.variants import FAMILIES, LAMBDAS, MODELS, Variant

torch.set_num_threads(1)


def protocol_members(protocol) -> set:
    """The attributes and methods a runtime-checkable Protocol declares (its annotations and the functions of its
    body), as Python 3.11's isinstance checks them."""
    body = {n for n, v in vars(protocol).items() if callable(v) or isinstance(v, classmethod)}
    return {n for n in set(protocol.__annotations__) | body if not n.startswith("_")}


def missing_members(obj, protocol=TransferModel) -> list:
    """The protocol's members `obj` lacks, looked up with hasattr. From Python 3.12 on, isinstance against a
    runtime-checkable Protocol uses inspect.getattr_static, which does not see an nn.Module's submodules (they
    live in its _modules, reached through __getattr__): `embed` is one."""
    return sorted(n for n in protocol_members(protocol) if not hasattr(obj, n))


def test_the_protocol_members_are_the_ones_python_lists():
    members = protocol_members(TransferModel)
    assert {
        "embed",
        "adversary_reads_transfer",
        "from_settings",
        "encode",
        "beam",
        "adversarial_loss",
    } <= members
    assert len(members) == 12
    if hasattr(TransferModel, "__protocol_attrs__"):  # Python 3.12 and later
        assert members == set(TransferModel.__protocol_attrs__)


@pytest.mark.parametrize("family", MODELS)
def test_every_registered_family_is_a_transfer_model(family):
    from test_transfer import TINY

    model = build_model({**DEFAULTS, **TINY}, 12, {"model": family})
    assert missing_members(model) == []
    assert type(model) is FAMILIES[family].load()


def test_the_protocol_check_can_fail():
    class NoAdversary(torch.nn.Module):  # decodes, but has no adversarial terms
        embed = torch.nn.Embedding(3, 2)
        adversary_reads_transfer = False

        def encode(self, tokens, lengths, style): ...
        def teacher_force(self, z, style, targets): ...
        def soft_decode(self, z, style, steps, gamma, mode): ...
        def greedy(self, z, style, max_len): ...
        def beam(self, z, style, max_len, width): ...
        def generator_parameters(self): ...
        def discriminator_parameters(self): ...

        @classmethod
        def from_settings(cls, settings, vocab_size, variant): ...

    assert missing_members(NoAdversary()) == ["adversarial_loss", "adversary_loss"]
    assert not isinstance(NoAdversary(), TransferModel)
    NoAdversary.adversary_loss = NoAdversary.adversarial_loss = lambda self, *a: None
    assert missing_members(NoAdversary()) == [] and isinstance(NoAdversary(), TransferModel)


def test_fu_models_share_their_base_and_keep_their_parameter_order():
    for cls in (MultiDecoder, StyleEmbedding):
        assert issubclass(cls, FuModel)
        for name in ("encode", "classify", "discriminator_parameters", "adversary_loss", "adversarial_loss"):
            assert name not in vars(cls), (cls, name)  # written once, in FuModel
    # the parameters registered in the order of the models before the base class (state_dict keys, init order)
    gru = ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    fu = ["embed.weight", *(f"content.gru.{k}" for k in gru)]
    fu += [f"content.classifier.{i}.{k}" for i in (0, 2) for k in ("weight", "bias")]
    assert list(StyleEmbedding(10, 4, 3, 2, 0.0, 5).state_dict()) == [
        *fu,
        "style_emb.weight",
        *(f"gru.{k}" for k in gru),
        "proj.weight",
        "proj.bias",
    ]
    assert list(MultiDecoder(10, 4, 3, 0.0, 5).state_dict()) == [
        *fu,
        *(f"decoders.{i}.{k}" for i in (0, 1) for k in gru),
        *(f"projs.{i}.{k}" for i in (0, 1) for k in ("weight", "bias")),
    ]


def test_variant_is_frozen_hashable_and_resolved():
    v = Variant.of({"model": "multi_decoder", "lambda_cyc": 5})
    assert v.as_dict() == {
        "model": "multi_decoder",
        "lambda_rec": 1.0,
        "lambda_para": 0.0,
        "lambda_cyc": 5.0,
        "lambda_lm": 0.0,
        "lambda_adv": 1.0,
        "lambda_adv2": 0.0,
        "lambda_attr": 0.0,
    }
    assert list(v.as_dict())[1:] == list(LAMBDAS)  # the order checkpoints and train.done.json keep
    assert v["lambda_cyc"] == 5.0 and v["model"] == "multi_decoder"
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.model = "cross_aligned"
    with pytest.raises(TypeError):
        v.settings["epochs"] = 3  # read-only
    same = Variant.of({"model": "multi_decoder", "lambda_cyc": 5.0, "lambda_rec": 1})
    assert same == v and len({v, same}) == 1
    assert Variant.of(v) is v  # a Variant is not resolved again
    with_settings = Variant.of(v, {"epochs": 2, "betas": [0.9, 0.999]})
    assert with_settings != v and hash(with_settings) == hash(
        Variant.of(v, {"betas": [0.9, 0.999], "epochs": 2})
    )
    assert dict(with_settings.settings) == {"epochs": 2, "betas": [0.9, 0.999]}


def test_a_train_files_job_resolves_its_variant_once(tmp_path, monkeypatch):
    from test_transfer import TINY, corpus_files

    resolved = []
    of = Variant.of.__func__

    def counting(cls, variant, settings=None):
        if not isinstance(variant, Variant):
            resolved.append(dict(variant))
        return of(cls, variant, settings)

    monkeypatch.setattr(Variant, "of", classmethod(counting))
    f = corpus_files(tmp_path)
    variant = {"model": "cross_aligned", "lambda_cyc": 1}
    train_files(TINY, variant, 2, tmp_path / "out", f["train"], f["dev"], f["vocab"], 1, device="cpu")
    assert resolved == [variant]  # main at ffcaf18: variants.resolve ran 12 times (2 checkpoints)


def test_terms_name_the_losses_csv_columns():
    assert list(G_TERMS) == ["adv", "adv2", "cyc", "para", "lm", "attr"]
    assert TERMS == ["total", "rec", "adv", "adv2", "cyc", "para", "lm", "attr", "d0", "d1", "d2_0", "d2_1"]
    assert {f"lambda_{t}" for t in ["rec", *G_TERMS]} == set(LAMBDAS)  # every term has its lambda


# What 4 steps (1 epoch) give with the code before the protocol (main at ffcaf18, whose trainer defaults were
# test_trainer.PAPER_DEFAULTS), run on an Intel Xeon (the call below with ffcaf18's
# tst first on sys.path): the total loss of each step, the sum of squares and of absolute values of the final weights, and
# the sha256 (first 16 hex digits) of the epoch-1 dev transfers. The refactor changed no number nor the order of
# RNG draws. Compared within float32 rounding rather than as a digest of the raw bytes: those differ between
# CPUs (the digests first taken on an AMD EPYC did not match ffcaf18's own output on an Intel Xeon).
BEFORE = {
    "M0": (
        [18.0521297454834, 7.096316814422607, 12.462971687316895, 21.434066772460938],
        217.8767085958591,
        441.47346077131806,
        "dd4d8f22bfe35546",
    ),
    "M7_attr": (
        [21.340435028076172, 26.75336456298828, 79.37708282470703, 130.18258666992188],
        224.14079347005588,
        478.72187784740163,
        "dd4d8f22bfe35546",
    ),
    "multi_decoder": (
        [16.986656188964844, 9.281756401062012, 23.814760208129883, 41.52845764160156],
        244.4491848825755,
        522.4239404398322,
        "479892840a220c2a",
    ),
    "style_embedding": (
        [23.169448852539062, 11.26564884185791, 17.782119750976562, 26.292945861816406],
        229.3361119488822,
        463.4853165578352,
        "237cf5cbd7386cb1",
    ),
}
VARIANTS = {
    "M0": {},
    "M7_attr": {"lambda_cyc": 5, "lambda_para": 0.2, "lambda_lm": 1e-3, "lambda_adv2": 1, "lambda_attr": 1.0},
    "multi_decoder": {"model": "multi_decoder", "lambda_cyc": 1, "lambda_lm": 1e-3},
    "style_embedding": {"model": "style_embedding", "lambda_para": 0.5, "lambda_attr": 1.0},
}


@pytest.mark.parametrize("name", VARIANTS)
def test_training_is_bit_identical_to_the_code_before_the_protocol(name):
    from test_trainer import CFG, PAPER_DEFAULTS, TinyLM, attribute_lists, setup

    vocab, train_s, dev, para = setup()
    attrs = attribute_lists(train_s)
    cfg = {**PAPER_DEFAULTS, **CFG, "epochs": 1, "cyc_start": 0.0, "cyc_ramp": 0.5}
    with tempfile.TemporaryDirectory() as d:
        lms = [TinyLM(len(vocab)), TinyLM(len(vocab))]
        model = train(
            cfg,
            VARIANTS[name],
            vocab,
            train_s,
            dev,
            d,
            seed=3,
            paraphrase=para,
            lms=lms,
            attributes=attrs,
            device="cpu",
            progress=False,
        )
        with open(Path(d) / "losses.csv") as f:
            totals = [float(r["total"]) for r in csv.DictReader(f)]
        h = hashlib.sha256()
        for t in (0, 1):
            h.update((Path(d) / "transfers" / f"dev.ep1.0.{t}.txt").read_bytes())
    weights = [t.double() for t in model.state_dict().values() if t.is_floating_point()]
    w_sq, w_abs = sum(float((w**2).sum()) for w in weights), sum(float(w.abs().sum()) for w in weights)
    totals_before, w_sq_before, w_abs_before, transfers_before = BEFORE[name]
    assert totals == pytest.approx(totals_before, rel=1e-5)
    assert (w_sq, w_abs) == pytest.approx((w_sq_before, w_abs_before), rel=1e-6)
    assert h.hexdigest()[:16] == transfers_before
