"""Variants name their model: the model registry, the run signature, checkpoints that rebuild their model,
and the file-level entry points train_files / transfer_test_files."""

import logging

import pytest
import torch

from tst.io import read_json, read_lines, write_jsonl, write_lines
from tst.models.cross_aligned import CrossAligned
from tst.models.fu_multi_decoder import MultiDecoder
from tst.models.fu_style_embedding import StyleEmbedding
from tst.models.registry import build_model
from tst.train import checkpoint
from tst.train.trainer import DEFAULTS, train_files
from tst.train.transfer import transfer_test_files
from tst.variants import FAMILIES, MODELS
from tst.vocab import Vocab

torch.set_num_threads(1)

TINY = {
    "emb_dim": 6,
    "style_dim": 4,
    "content_dim": 8,
    "disc_filters": 4,
    "disc_widths": [1, 2],
    "disc2_widths": [1],
    "cls_hidden": 4,
    "batch_size": 4,
    "epochs": 1,
    "dev_batch_size": 4,
}
CLASSES = {"cross_aligned": CrossAligned, "multi_decoder": MultiDecoder, "style_embedding": StyleEmbedding}
S0 = [
    "the food was cold",
    "rude staff",
    "never again",
    "bland soup here",
    "slow service",
    "cold and bland",
    "the staff was rude",
    "never going back",
]
S1 = [
    "the food was warm",
    "kind staff",
    "always again",
    "tasty soup here",
    "fast service",
    "warm and tasty",
    "the staff was kind",
    "always going back",
]


def n_params(model) -> int:
    return sum(p.numel() for p in model.parameters())


def test_registry_builds_the_model_each_variant_names():
    assert tuple(FAMILIES) == MODELS and {n: f.load() for n, f in FAMILIES.items()} == CLASSES
    cfg = {**DEFAULTS, **TINY}
    counts = {}
    for name in MODELS:
        model = build_model(cfg, 20, {"model": name, "lambda_cyc": 1})
        assert type(model) is CLASSES[name]
        counts[name] = n_params(model)
    assert len(set(counts.values())) == 3
    assert type(build_model(cfg, 20, {})) is CrossAligned  # default model
    # the critics D' exist only when the variant weighs them
    assert build_model(cfg, 20, {}).disc2 is None
    assert build_model(cfg, 20, {"lambda_adv2": 1}).disc2 is not None
    with pytest.raises(ValueError, match="model 'transformer' is not one of"):
        build_model(cfg, 20, {"model": "transformer"})
    with pytest.raises(ValueError, match="lambda_adv2.*needs model cross_aligned"):
        build_model(cfg, 20, {"model": "multi_decoder", "lambda_adv2": 1})
    with pytest.raises(ValueError, match="unknown variant keys"):
        build_model(cfg, 20, {"lambda_typo": 1})
    # a `model` left in the settings is ignored by the registry: the variant decides
    assert type(build_model({**cfg, "model": "multi_decoder"}, 20, {})) is CrossAligned


def test_run_signature_includes_the_model():
    vocab = Vocab(["a", "b"])
    ids = [[[4, 5]], [[5]]]
    cfg = {**DEFAULTS, **TINY}
    sig = {m: checkpoint.run_signature(cfg, {"model": m}, vocab, ids, 1) for m in MODELS}
    assert len(set(sig.values())) == 3
    # the variant enters resolved: naming a default explicitly is the same run
    assert checkpoint.run_signature(cfg, {}, vocab, ids, 1) == sig["cross_aligned"]
    assert checkpoint.run_signature(cfg, {"lambda_adv": 1}, vocab, ids, 1) == sig["cross_aligned"]
    assert checkpoint.run_signature(cfg, {"lambda_cyc": 1}, vocab, ids, 1) != sig["cross_aligned"]
    assert checkpoint.run_signature({**cfg, "epochs": 7}, {}, vocab, ids, 1) == sig["cross_aligned"]


def corpus_files(tmp_path):
    paths = {}
    for split, lines in (("train", (S0, S1)), ("dev", (S0[:3], S1[:2])), ("test", (S0[3:], S1[:5]))):
        paths[split] = []
        for t in (0, 1):
            path = tmp_path / "data" / f"{split}.{t}.txt"
            write_lines(path, lines[t])
            paths[split].append(path)
    Vocab.save_counts(tmp_path / "data" / "vocab.txt", [s.split() for s in S0 + S1])
    paths["vocab"] = tmp_path / "data" / "vocab.txt"
    return paths


def test_train_files_refuses_missing_inputs_and_a_model_setting(tmp_path):
    f = corpus_files(tmp_path)
    common = {
        "seed": 1,
        "out_dir": tmp_path / "out",
        "train": f["train"],
        "dev": f["dev"],
        "vocab": f["vocab"],
        "min_count": 1,
    }
    with pytest.raises(ValueError, match="lambda_para = 0.2 > 0 needs paraphrase"):
        train_files(TINY, {"lambda_para": 0.2}, **common)
    with pytest.raises(ValueError, match="needs lm"):
        train_files(TINY, {"lambda_lm": 1e-3}, **common, paraphrase=f["train"])
    with pytest.raises(ValueError, match="needs attributes"):
        train_files(TINY, {"lambda_attr": 1}, **common)
    with pytest.raises(ValueError, match="model.*variant"):
        train_files({**TINY, "model": "multi_decoder"}, {}, **common)
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_train_files_checks_the_vocabulary_of_the_frozen_lms(tmp_path):
    from tst.models.gru_lm import GRULanguageModel

    f = corpus_files(tmp_path)
    other = Vocab(["a", "b", "c"])
    ck = {
        "kind": "gru_lm",
        "config": {"model": {"emb_dim": 4, "hidden_dim": 4}},
        "vocab": other.itos,
        "state_dict": GRULanguageModel(len(other), 4, 4).state_dict(),
    }
    torch.save(ck, tmp_path / "lm_style0.pt")
    lms = [tmp_path / "lm_style0.pt", tmp_path / "lm_style0.pt"]
    with pytest.raises(ValueError, match="lm_style0.pt: its vocabulary differs"):
        train_files(
            TINY, {"lambda_lm": 1e-3}, 1, tmp_path / "out", f["train"], f["dev"], f["vocab"], 1, lm=lms
        )


@pytest.mark.parametrize("model", ["cross_aligned", "multi_decoder"])
def test_train_files_then_transfer_test_files(tmp_path, model, caplog):
    f = corpus_files(tmp_path)
    out = tmp_path / "out"
    variant = {"model": model, "lambda_cyc": 1}
    dev_ents = []
    for t in (0, 1):
        dev_ents.append(tmp_path / f"dev.{t}.entities.jsonl")
        write_jsonl(dev_ents[-1], [[] for _ in read_lines(f["dev"][t])])
    trained = train_files(
        TINY, variant, 2, out, f["train"], f["dev"], f["vocab"], 1, dev_entities=dev_ents, device="cpu"
    )
    assert type(trained) is CLASSES[model]
    # 8 + 8 sentences, batch 4: 2 steps per epoch, a checkpoint after each
    assert [p.name for _, p in checkpoint.checkpoints(out / "checkpoints")] == ["ep0.5.pt", "ep1.0.pt"]
    for label in ("ep0.5", "ep1.0"):
        for t, n in ((0, 3), (1, 2)):
            assert len(read_lines(out / "transfers" / f"dev.{label}.{t}.txt")) == n
            assert len(read_lines(out / "transfers" / f"dev.{label}.{t}.unmasked.txt")) == n
    done = read_json(out / "train.done.json")
    assert done["seed"] == 2 and done["config"] == TINY and done["variant"]["model"] == model
    assert done["variant"]["lambda_cyc"] == 1.0 and done["variant"]["lambda_adv"] == 1.0
    ck = checkpoint.load(out / "checkpoints" / "ep1.0.pt")
    assert ck["variant"] == done["variant"] and "model" not in ck["config"]
    rebuilt, _ = checkpoint.model_from_checkpoint(ck)
    assert type(rebuilt) is CLASSES[model] and n_params(rebuilt) == n_params(trained)
    for k, v in trained.state_dict().items():
        assert torch.equal(v, rebuilt.state_dict()[k]), k

    ckpts = {label: out / "checkpoints" / f"{label}.pt" for label in ("ep0.5", "ep1.0")}
    outputs = {label: [tmp_path / "test" / f"{label}.{t}.txt" for t in (0, 1)] for label in ckpts}
    ents = [tmp_path / f"test.{t}.entities.jsonl" for t in (0, 1)]
    write_jsonl(ents[0], [[["-PERSON-", "john smith"]]] + [[] for _ in S0[4:]])
    write_jsonl(ents[1], [[] for _ in S1[:5]])
    with caplog.at_level(logging.INFO, logger="tst.train.transfer"):
        transfer_test_files(ckpts, f["test"], outputs, entities=ents, batch_size=2, device="cpu")
    # the log says what was done: one line per checkpoint and style, with the sentence count and the file
    said = [r.getMessage() for r in caplog.records if r.name == "tst.train.transfer"]
    assert said == [
        f"{label}: {len(read_lines(f['test'][t]))} test sentences of style {t} transferred (greedy) to "
        f"{outputs[label][t]}"
        for label in ckpts
        for t in (0, 1)
    ]
    for label in ckpts:
        for t in (0, 1):
            n = len(read_lines(f["test"][t]))
            assert len(read_lines(outputs[label][t])) == n
            assert len(read_lines(tmp_path / "test" / f"{label}.{t}.unmasked.txt")) == n
    # one checkpoint on its own transfers as it did among others
    again = {"ep1.0": [tmp_path / "again" / f"{t}.txt" for t in (0, 1)]}
    transfer_test_files({"ep1.0": ckpts["ep1.0"]}, f["test"], again, batch_size=2)
    assert [read_lines(p) for p in again["ep1.0"]] == [read_lines(p) for p in outputs["ep1.0"]]
    assert not (tmp_path / "again" / "0.unmasked.txt").exists()  # no entities, no unmasked copies
    with pytest.raises(ValueError, match="labels"):
        transfer_test_files(ckpts, f["test"], again)


def test_checkpoints_without_a_variant_still_load():
    """Checkpoints written when the model was a setting: config["model"] and the lambdas apart."""
    cfg = {**DEFAULTS, **TINY}
    model = build_model(cfg, 10, {"model": "style_embedding"})
    ck = {
        "model": model.state_dict(),
        "vocab": Vocab(["a", "b", "c", "d", "e", "f"]).itos,
        "config": {**cfg, "model": "style_embedding"},
        "lambdas": {"lambda_cyc": 1.0},
    }
    rebuilt, vocab = checkpoint.model_from_checkpoint(ck)
    assert type(rebuilt) is StyleEmbedding and len(vocab) == 10
