"""The GPU's fast path keeps the math: foreach / fused Adam and compiled soft decoding give the plain path's
losses over 200 steps from one initialization (on CPU: torch's foreach Adam and torch.compile's aot_eager
backend stand in for the CUDA kernels and graphs); resuming equals an uninterrupted run on CUDA when there is one;
the settings that choose the path."""

import numpy as np
import pytest
import torch
from test_trainer import CFG, M7, TinyLM, run, setup

from tst.models.registry import build_model
from tst.optim import Adam, adam_options, apply_adam_options
from tst.train.batching import epoch_plan
from tst.train.step import train_step
from tst.train.trainer import COMPILE, DEFAULTS, compile_soft_decode, compiles, make_optimizers
from tst.variants import resolve

torch.set_num_threads(1)

STEPS = 200
# Stated tolerance of the fast path: each loss term of every one of 200 steps within this relative distance (or
# this absolute one, for terms near 0) of the plain path's. Only the order of float operations differs, so the two
# runs stay within ~1e-6 for the first steps and drift apart slowly as adversarial training amplifies rounding.
RTOL, ATOL = 1e-3, 1e-4


def two_runs(fast, steps=STEPS, variant=M7):
    """Per step, the loss terms of the plain path and of fast(model, opt_g, opt_d) -> (model, opt_g, opt_d),
    both from the same initialization, batches and random stream."""
    vocab, train_s, _, para = setup()
    cfg = {**DEFAULTS, **CFG}
    lam = resolve(variant)
    ids = [[vocab.encode(s) for s in train_s[t]] for t in (0, 1)]
    para_ids = [[(vocab.encode(u), vocab.encode(v)) for u, v in para[t]] for t in (0, 1)]
    spe = len(epoch_plan([len(s) for s in ids[0]], [len(s) for s in ids[1]], cfg["batch_size"], 3, 0))
    out = []
    for path in ("plain", "fast"):
        torch.manual_seed(0)
        model = build_model(cfg, len(vocab), lam)
        opt_g, opt_d = make_optimizers(model, cfg, "cpu")
        if path == "fast":
            model, opt_g, opt_d = fast(model, opt_g, opt_d)
        lms = [TinyLM(len(vocab)), TinyLM(len(vocab))]
        torch.manual_seed(1)
        rows = []
        for step in range(steps):
            epoch, local = divmod(step, spe)
            i0, i1 = epoch_plan(
                [len(s) for s in ids[0]], [len(s) for s in ids[1]], cfg["batch_size"], 3, epoch
            )[local]
            terms = train_step(
                model,
                opt_g,
                opt_d,
                [ids[0][i] for i in i0],
                [ids[1][i] for i in i1],
                lam,
                cfg,
                min(epoch, 3),
                step + 1,
                3,
                para_ids,
                lms,
                torch.device("cpu"),
            )
            rows.append(terms)
        out.append(rows)
    return out


def assert_close(plain, fast):
    assert len(plain) == len(fast) == STEPS
    worst = 0.0
    for step, (a, b) in enumerate(zip(plain, fast), 1):
        assert a.keys() == b.keys(), step
        for k in a:
            assert np.isfinite(b[k]), (step, k)
            assert b[k] == pytest.approx(a[k], rel=RTOL, abs=ATOL), (step, k, a[k], b[k])
            worst = max(worst, abs(a[k] - b[k]))
    return worst


@pytest.mark.slow  # 200 training steps twice (make test, not make test-quick)
def test_foreach_adam_gives_the_per_parameter_adam_losses_over_200_steps():
    def foreach(model, opt_g, opt_d):
        cfg = {**DEFAULTS, **CFG}
        g = Adam(model.generator_parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]), foreach=True)
        d = Adam(model.discriminator_parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]), foreach=True)
        return model, g, d

    used = []

    def foreach_spy(model, opt_g, opt_d):
        used.append(foreach(model, opt_g, opt_d))
        return used[-1]

    plain, fast = two_runs(foreach_spy)
    assert all(g["foreach"] for _, *opts in used for opt in opts for g in opt.param_groups)
    assert_close(plain, fast)
    # on CPU torch's foreach kernels do each parameter's arithmetic in the same order: equal bit for bit
    assert plain == fast


@pytest.mark.slow  # 200 training steps twice (make test, not make test-quick)
def test_compiled_soft_decoding_gives_the_plain_losses_over_200_steps():
    def compiled(model, opt_g, opt_d):
        compile_soft_decode(model, backend="aot_eager")  # the graph torch.compile traces, run eagerly
        return model, opt_g, opt_d

    plain, fast = two_runs(compiled)
    assert_close(plain, fast)


@pytest.mark.slow
def test_inductor_compiled_soft_decoding_gives_the_plain_losses():
    # the compiler CUDA runs (inductor; on CUDA its graphs are then captured as CUDA graphs), here on CPU for one
    # sentence length (two graphs, ~40 s to build on 2 shared cores): the same losses, dropout and Gumbel noise
    # included, to float rounding
    vocab, train_s, _, _ = setup()
    cfg = {**DEFAULTS, **CFG, "dropout": 0.3}
    lam = resolve({"lambda_cyc": 5})
    b = [[vocab.encode(s) for s in train_s[t] if len(s) == 3][:4] for t in (0, 1)]
    losses = {}
    for path in ("plain", "inductor"):
        torch.manual_seed(0)
        model = build_model(cfg, len(vocab), lam)
        opt_g, opt_d = make_optimizers(model, cfg, "cpu")
        if path == "inductor":
            compile_soft_decode(model)
        torch.manual_seed(1)
        losses[path] = [
            train_step(model, opt_g, opt_d, b[0], b[1], lam, cfg, 0, k + 1, 3, device=torch.device("cpu"))
            for k in range(5)
        ]
    assert len(b[0]) == len(b[1]) == 4
    for a, c in zip(losses["plain"], losses["inductor"]):
        assert a.keys() == c.keys()
        for k in a:
            assert c[k] == pytest.approx(a[k], rel=1e-5, abs=1e-6), k


def test_the_fast_path_is_chosen_for_cuda_only():
    # torch's default: the CPU runs' numerics
    assert adam_options("cpu") == {"foreach": None, "fused": None, "capturable": False}
    assert adam_options("cuda") == {"foreach": False, "fused": True, "capturable": False}
    assert adam_options(torch.device("cuda:1"))["fused"] is True
    # auto: the plain soft decoding, measured faster than the compiled one on an H200 (docs/gpu.md)
    assert compiles(True) and not compiles("auto") and not compiles(False)
    with pytest.raises(ValueError, match="transfer.compile must be one of auto, true, false, not 'on'"):
        compiles("on")
    assert DEFAULTS["compile"] == "auto"


def test_a_resumed_optimizer_takes_this_devices_adam_kernel():
    # a checkpoint written on a GPU (fused Adam) resumed on a CPU runs the CPU's per-parameter Adam, and back
    model = torch.nn.Linear(2, 2)
    saved = Adam(model.parameters(), lr=0.1, **adam_options("cuda")).state_dict()
    opt = Adam(model.parameters(), lr=0.1)
    opt.load_state_dict(saved)
    assert opt.param_groups[0]["fused"] is True  # what load_state_dict brings
    apply_adam_options(opt, "cpu")
    assert opt.param_groups[0]["fused"] is None and opt.param_groups[0]["foreach"] is None
    apply_adam_options(opt, "cuda")
    assert opt.param_groups[0]["fused"] is True and opt.param_groups[0]["foreach"] is False


DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def test_resume_equals_uninterrupted_run_on_the_gpu_when_there_is_one(tmp_path):
    # tests/train/test_trainer.py checks it bit for bit on CPU; here on CUDA when present (fused Adam, TF32,
    # the GPU's random streams restored from the checkpoint), else on CPU. The plain soft decoding: compiling
    # each of the tiny corpus's lengths would take minutes. CUDA kernels may sum in another order from run to
    # run, so on CUDA the weights agree to float tolerance.
    cfg = {**CFG, "compile": False}
    full = run(tmp_path / "a", cfg=cfg, device=DEVICE)
    run(tmp_path / "b", stop=3, cfg=cfg, device=DEVICE)
    resumed = run(tmp_path / "b", cfg=cfg, device=DEVICE)
    for k, v in full.state_dict().items():
        if DEVICE == "cpu":
            assert torch.equal(v, resumed.state_dict()[k]), k
        else:
            torch.testing.assert_close(resumed.state_dict()[k], v, rtol=1e-4, atol=1e-5, msg=k)
    assert next(full.parameters()).device.type == DEVICE


def test_soft_decoding_does_no_host_work(monkeypatch):
    # no tensor read back to Python inside the loop (.item(), float(), bool(), int(), .tolist(), .cpu()): on CUDA
    # each would wait for the GPU, and a CUDA graph cannot hold one
    vocab, *_ = setup()
    cfg = {**DEFAULTS, **CFG, "dropout": 0.5}
    model = build_model(cfg, len(vocab), resolve(M7)).train()
    z = torch.randn(3, cfg["content_dim"])

    def refuse(self, *a, **k):
        raise AssertionError("a tensor was read back to the host during soft decoding")

    for name in ("item", "__float__", "__bool__", "__int__", "tolist", "cpu", "numpy"):
        monkeypatch.setattr(torch.Tensor, name, refuse)
    h, logits, probs = model.soft_decode(z, 1, 6, 0.5, "gumbel")
    monkeypatch.undo()
    assert h.shape == (3, 7, cfg["style_dim"] + cfg["content_dim"]) and logits.shape == probs.shape == (
        3,
        6,
        len(vocab),
    )
    torch.testing.assert_close(probs.sum(-1), torch.ones(3, 6))


def test_a_run_resumes_across_the_compile_setting():
    # compiled or not, the same arithmetic: a run started with transfer.compile false resumes with auto or true
    from tst.train.checkpoint import run_signature

    vocab, train_s, _, _ = setup()
    ids = [[vocab.encode(s) for s in train_s[t]] for t in (0, 1)]
    sig = {c: run_signature({**DEFAULTS, **CFG, "compile": c}, M7, vocab, ids, 3, "code") for c in COMPILE}
    assert len(set(sig.values())) == 1
    assert run_signature({**DEFAULTS, **CFG, "lr": 0.5}, M7, vocab, ids, 3, "code") != sig["auto"]
