"""Device and precision decisions (tst.device) and the evaluators' bf16 training path."""

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
import yaml

import tst.device as device_mod
from tst.device import cpu_flags, cpu_has_bf16, use_bf16
from tst.evaluators.language_model import lm_batch, train_lm
from tst.models.gru_lm import GRULanguageModel
from tst.stages import evaluator_settings, naturalness_settings
from tst.vocab import Vocab

CPUINFO = """processor\t: 0
vendor_id\t: {vendor}
flags\t\t: fpu sse sse2 avx2 {extra} avx512f
bogomips\t: 4000.00

processor\t: 1
flags\t\t: fpu
"""


@pytest.mark.parametrize(
    "extra, has", [("avx512_bf16", True), ("amx_bf16 amx_tile", True), ("avx512bw", False), ("", False)]
)
def test_cpu_has_bf16_reads_the_first_flags_line(tmp_path, extra, has):
    path = tmp_path / "cpuinfo"
    path.write_text(CPUINFO.format(vendor="AuthenticAMD", extra=extra))
    assert {"fpu", "sse", "avx2", "avx512f"} <= cpu_flags(path)
    assert cpu_has_bf16(path) is has


def test_unreadable_cpuinfo_means_no_bf16(tmp_path):
    assert cpu_flags(tmp_path / "missing") == set() and not cpu_has_bf16(tmp_path / "missing")


def test_use_bf16_table(monkeypatch):
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert use_bf16("bf16", cpu) and use_bf16("bf16", cuda)
    assert not use_bf16("fp32", cpu) and not use_bf16("fp32", cuda, cpu_auto=True)
    # auto on CUDA: fp32 (bf16 measured slower on an H100 for every model, docs/gpu.md) unless a caller measured it
    assert not use_bf16("auto", cuda) and not use_bf16("auto", cuda, cpu_auto=True)
    assert use_bf16("auto", cuda, cuda_auto=True)
    for has in (True, False):
        monkeypatch.setattr(device_mod, "cpu_has_bf16", lambda has=has: has)
        assert use_bf16("auto", cpu, cpu_auto=True) is has
        assert use_bf16("auto", cpu, cpu_auto=False) is False  # the caller did not choose bf16 for CPUs
    with pytest.raises(ValueError, match="precision must be one of auto, bf16, fp32, not 'fp16'"):
        use_bf16("fp16", cpu)


def test_evaluator_settings_carry_the_precision():
    config = {
        "datasets": {"d": {"vocab": {"min_count": 2}}},
        "evaluators": {"precision": "fp32", "lm": {"hidden_dim": 8}, "naturalness": {"nn": {"emb_dim": 4}}},
    }
    shipped = yaml.safe_load((Path(__file__).parents[1] / "config.yaml").read_text())["evaluators"]["lm"]
    # the run's keys over config.yaml's block: every key the LM's training reads is there
    assert evaluator_settings(config, "lm", "d") == {
        **shipped,
        "min_count": 2,
        "precision": "fp32",
        "hidden_dim": 8,
    }
    assert naturalness_settings(config, "nn")["precision"] == "fp32"
    assert "precision" not in naturalness_settings(config, "lr")  # a logistic regression: no torch
    del config["evaluators"]["precision"]
    assert evaluator_settings(config, "cnn", "d")["precision"] == "auto"


@pytest.mark.parametrize("precision, dtype", [("bf16", torch.bfloat16), ("fp32", torch.float32)])
def test_lm_training_steps_run_in_the_asked_precision(monkeypatch, precision, dtype):
    # the forward passes of the training steps see `dtype` activations; the dev evaluation, the weights and the
    # saved checkpoint stay fp32; the checkpoint says which precision trained it
    seen = {"train": set(), "eval": set()}
    real = F.cross_entropy

    def spy(logits, *a, **k):
        seen["train" if torch.is_grad_enabled() else "eval"].add(logits.dtype)
        return real(logits, *a, **k)

    monkeypatch.setattr(F, "cross_entropy", spy)
    sents = [s.split() for s in ["a b c", "b c a", "c a b a", "a a b"]] * 4
    vocab = Vocab.build(sents)
    ckpt = train_lm(
        sents,
        sents[:4],
        vocab,
        {"emb_dim": 8, "hidden_dim": 8},
        {"max_epochs": 2, "batch_size": 4, "seed": 1, "device": "cpu", "precision": precision},
        log=lambda *a: None,
    )
    assert seen["train"] == {dtype} and seen["eval"] == {torch.float32}
    assert ckpt["metrics"]["precision"] == precision
    assert all(v.dtype == torch.float32 for v in ckpt["state_dict"].values())


def test_lm_bf16_loss_is_the_fp32_loss_to_bf16_precision():
    # one batch through the same weights: autocast changes the matmuls' rounding only (~3 significant digits)
    torch.manual_seed(0)
    vocab = Vocab.build([["a", "b", "c", "d"]])
    model = GRULanguageModel(len(vocab), 16, 32).eval()
    inp, tgt = lm_batch([vocab.encode(s.split()) for s in ["a b c d", "d c b", "a a"]], vocab)
    with torch.no_grad():
        fp32 = F.cross_entropy(model(inp).transpose(1, 2), tgt, ignore_index=vocab.pad_id)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            bf16 = F.cross_entropy(model(inp).float().transpose(1, 2), tgt, ignore_index=vocab.pad_id)
    assert abs(float(bf16) - float(fp32)) < 1e-2 * float(fp32)
    assert float(bf16) != float(fp32)  # it did run in bf16
