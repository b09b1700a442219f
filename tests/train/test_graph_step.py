"""The graphed training step (tst.train.graph_step, transfer.cuda_graph): on a CPU its arithmetic runs eagerly over
the static buffers and gives the plain step's losses over 200 steps from one initialization; its buckets, cap and
fallback; what the setting does where graphs cannot run; a checkpoint of the graphed path resumes on the plain
one. On CUDA (bench/gpu_check.sh) the captured graphs against the plain path."""

import copy
import logging
from collections import Counter

import numpy as np
import pytest
import torch
from test_fast_path import ATOL, RTOL
from test_trainer import CFG, M7, TinyLM, attribute_lists, run, setup

from tst.models.registry import build_model
from tst.optim import Adam, adam_options, apply_adam_options
from tst.train import graph_step
from tst.train.batching import epoch_plan, pad_batch
from tst.train.graph_step import GraphedStep, graph_safe, unsupported, use_cuda_graph
from tst.train.step import NonFiniteLoss, train_step
from tst.train.trainer import DEFAULTS, make_optimizers
from tst.variants import resolve

torch.set_num_threads(1)

STEPS = 200
VARIANTS = {"M0": {}, "M2": {"lambda_cyc": 5}, "M7": M7}
# The graphed step's losses on CUDA: the mean of each term over the last 50 of 200 steps within this relative
# distance of the plain path's (docs/gpu.md: TF32 and fused kernels round differently and adversarial training
# carries the difference forward; the fast path's check allows the same 2%).
GPU_MEAN_RTOL = 0.02
# The same on a CPU, where only the encoder's rounding differs (test_the_static_step_gives_the_plain_losses...).
CPU_MEAN_RTOL = 0.002


def plan(cfg, ids, steps):
    """Per step (from 0): the epoch (at most 3: gamma and eq. 7's weight decay over four values, as
    tests/train/test_fast_path.py's runs) and the two batches, as the trainer draws them (seed 3)."""
    lengths = [[len(s) for s in ids[t]] for t in (0, 1)]
    spe = len(epoch_plan(*lengths, cfg["batch_size"], 3, 0))
    out = []
    for step in range(steps):
        epoch, local = divmod(step, spe)
        i0, i1 = epoch_plan(*lengths, cfg["batch_size"], 3, epoch)[local]
        out.append((min(epoch, 3), [ids[0][i] for i in i0], [ids[1][i] for i in i1]))
    return out


def ramp(step):
    """A lambda_cyc warm-up factor that changes every step (the graphs read it from their buffer)."""
    return min(1.0, step / 100)


def two_runs(
    variant,
    cfg,
    steps=STEPS,
    device="cpu",
    capture=False,
    max_graphs=64,
    lm_nan_after=None,
    same_model=False,
    paths=("plain", "graphed"),
):
    """Per step, the loss terms of the plain step and of GraphedStep, from one initialization, batches and random
    stream; and the GraphedStep. same_model: the plain step runs the model graph_safe too, and the paraphrase
    pairs all have one length (so the plain step pads them as the static buffer does)."""
    vocab, train_s, _, para = setup()
    if same_model:
        n = Counter(len(s) for t in (0, 1) for s in set(map(tuple, train_s[t]))).most_common(1)[0][0]
        para = [[(s, s[::-1]) for s in train_s[t] if len(s) == n] for t in (0, 1)]
        assert all(len(p) >= 3 for p in para)
    lam = resolve(variant)
    ids = [[vocab.encode(s) for s in train_s[t]] for t in (0, 1)]
    para_ids = [[(vocab.encode(u), vocab.encode(v)) for u, v in para[t]] for t in (0, 1)]
    batches = plan(cfg, ids, steps)
    device = torch.device(device)
    out = {}
    for path in paths:
        torch.manual_seed(0)
        model = build_model(cfg, len(vocab), lam).to(device)
        opt_g, opt_d = make_optimizers(model, cfg, device, graphed=path == "graphed" and capture)
        lms = [TinyLM(len(vocab), lm_nan_after).to(device) for _ in (0, 1)]
        graphed = GraphedStep(
            model, opt_g, opt_d, lam, cfg, device, False, para_ids, lms, capture, max_graphs
        )
        torch.manual_seed(1)
        if device.type == "cuda":
            torch.cuda.manual_seed(1)
        rows = []
        for step, (epoch, b0, b1) in enumerate(batches):
            if path == "plain":
                model.graph_safe = same_model
                rows.append(
                    train_step(
                        model, opt_g, opt_d, b0, b1, lam, cfg, epoch, step + 1, 3, para_ids, lms, device,
                        cyc_scale=ramp(step),
                    )
                )  # fmt: skip
                model.graph_safe = False
            else:
                rows.append(graphed(b0, b1, epoch, step + 1, 3, cyc_scale=ramp(step)))
        out[path] = rows
    return out.get("plain"), out.get("graphed"), graphed, batches


def assert_close(plain, graphed):
    for step, (a, b) in enumerate(zip(plain, graphed), 1):
        assert a.keys() == b.keys(), step
        for k in a:
            assert b[k] == pytest.approx(a[k], rel=RTOL, abs=ATOL), (step, k, a[k], b[k])


@pytest.mark.slow  # 200 training steps of each variant, twice (make test, not make test-quick)
@pytest.mark.parametrize("name", VARIANTS)
def test_the_static_step_is_the_plain_steps_arithmetic(name):
    # every term of the variant, Shen et al.'s gating switching the adversarial term (adv_threshold 1.2, the D
    # losses about 1.2), gamma and eq. 7's weight decaying per epoch and lambda_cyc rising every step: with the
    # same host-free model functions, the step over static buffers with its weights read from a tensor, the gate
    # and the fixed-length paraphrase batch gives the plain step's losses bit for bit, every step
    cfg = {**DEFAULTS, **CFG}
    plain, graphed, step_fn, batches = two_runs(VARIANTS[name], cfg, same_model=True)
    assert len(plain) == len(graphed) == STEPS
    assert plain == graphed
    # one static buffer (a graph on CUDA) per (length, batch size, terms on): counted here from the plan itself
    on = {
        (max(map(len, b0 + b1)), len(b0), len(b1), "cyc" in row) for (_, b0, b1), row in zip(batches, plain)
    }
    assert len(step_fn.inputs) == len(on) and step_fn.plain_steps == 0
    if name == "M0":
        assert {r["total"] == r["rec"] for r in plain} == {True, False}  # the gate was off and on
    if name == "M7":
        assert all("para" in r and "lm" in r and "adv2" in r for r in plain)


@pytest.mark.slow  # 200 training steps of each variant, twice (make test, not make test-quick)
@pytest.mark.parametrize("name", VARIANTS)
def test_the_static_step_gives_the_plain_losses_over_200_steps(name):
    # against the plain path itself (packed encoder, greedy stopping early, paraphrases padded per batch): one
    # step bit for bit; then the encoder's GRU over the padded batch rounds its sums over a different number of
    # rows (~1e-7 at step 2) and adversarial training carries the difference forward: within 1e-5 for 5 steps,
    # each term's mean over the last 50 of 200 within CPU_MEAN_RTOL
    cfg = {**DEFAULTS, **CFG}
    plain, graphed, *_ = two_runs(VARIANTS[name], cfg)
    assert plain[0] == graphed[0]
    for a, b in zip(plain[:5], graphed[:5]):
        assert a.keys() == b.keys()
        for k in a:
            assert abs(a[k] - b[k]) <= 1e-5 * max(1.0, abs(a[k])), k
    assert_means_close(plain, graphed, CPU_MEAN_RTOL)


def assert_means_close(plain, graphed, rtol):
    """Every step finite; each term's mean over the last 50 steps within rtol (relative; terms near 0: of 0.01)."""
    for k in plain[0]:
        a = np.array([r.get(k, np.nan) for r in plain])
        g = np.array([r.get(k, np.nan) for r in graphed])
        assert np.isfinite(g).all() and np.isfinite(a).all(), k
        ma, mg = a[-50:].mean(), g[-50:].mean()
        assert abs(mg - ma) <= rtol * max(abs(ma), 1e-2), (k, ma, mg)


def test_the_graph_safe_model_computes_what_the_plain_one_does():
    # the encoder's z at each row's last word of the padded run is the packed run's end; greedy without its early
    # stop adds <pad> columns only
    vocab, train_s, *_ = setup()
    cfg = {**DEFAULTS, **CFG}
    torch.manual_seed(0)
    model = build_model(cfg, len(vocab), resolve(M7)).eval()
    rows = [vocab.encode(s) for s in train_s[0][:8]]
    assert len({len(r) for r in rows}) > 2
    tokens, lengths, _ = pad_batch(rows, 9)  # padded beyond the longest too
    z = model.encode(tokens, lengths, 0)
    with graph_safe(model):
        z_safe = model.encode(tokens, lengths, 0)
        ids_safe = model.greedy(z, 1, 12)
    torch.testing.assert_close(z_safe, z, rtol=0, atol=1e-6)
    ids = model.greedy(z, 1, 12)
    assert ids_safe.shape == (8, 12) and ids.shape[1] <= 12
    assert torch.equal(ids_safe[:, : ids.shape[1]], ids) and (ids_safe[:, ids.shape[1] :] == 0).all()
    assert model.graph_safe is False


HOST_READS = ("item", "__float__", "__bool__", "__int__", "tolist", "cpu", "numpy")


@pytest.mark.parametrize("scope", ["all", "shen"])
def test_the_graphed_step_reads_nothing_back_to_the_host(monkeypatch, scope):
    # what a CUDA graph cannot hold: a tensor read back to Python (.item(), float(), bool(), .tolist(), .cpu(),
    # ...). M7 with every term on, Shen et al.'s gating and both clipping scopes, dropout on; only the CPU's own
    # Adam kernel reads its step count (the capturable CUDA kernel keeps it on the GPU), so it is let through.
    vocab, train_s, _, para = setup()
    cfg = {**DEFAULTS, **CFG, "dropout": 0.3, "grad_clip_scope": scope, "grad_clip": 1.0}
    lam = resolve(M7)
    ids = [[vocab.encode(s) for s in train_s[t]] for t in (0, 1)]
    para_ids = [[(vocab.encode(u), vocab.encode(v)) for u, v in para[t]] for t in (0, 1)]
    torch.manual_seed(0)
    model = build_model(cfg, len(vocab), lam)
    opt_g, opt_d = make_optimizers(model, cfg, "cpu")
    lms = [TinyLM(len(vocab)) for _ in (0, 1)]
    step_fn = GraphedStep(model, opt_g, opt_d, lam, cfg, "cpu", False, para_ids, lms)
    reads, allowed = [], [False]

    def refuse(name):
        original = getattr(torch.Tensor, name)

        def read(self, *a, **k):
            if not allowed[0]:
                reads.append(name)
            return original(self, *a, **k)

        return read

    def host_ok(step):
        def run(*a, **k):
            allowed[0] = True
            try:
                return step(*a, **k)
            finally:
                allowed[0] = False

        return run

    for opt in (opt_g, opt_d):
        opt.step = host_ok(opt.step)
    core_calls = []
    real_core = graph_step.graph_core

    def watched_core(*a, **k):
        core_calls.append(1)
        with pytest.MonkeyPatch.context() as mp:
            for name in HOST_READS:
                mp.setattr(torch.Tensor, name, refuse(name))
            return real_core(*a, **k)

    monkeypatch.setattr(graph_step, "graph_core", watched_core)
    for k, (epoch, b0, b1) in enumerate(plan(cfg, ids, 6)):
        terms = step_fn(b0, b1, epoch, k + 1, 3)
    assert len(core_calls) == 6 and {"cyc", "para", "lm", "adv", "adv2"} <= terms.keys()
    assert reads == []
    # the watch works: the plain step reads values back (the gate, the finite check, the packed lengths)
    with pytest.MonkeyPatch.context() as mp:
        for name in HOST_READS:
            mp.setattr(torch.Tensor, name, refuse(name))
        train_step(model, opt_g, opt_d, b0, b1, lam, cfg, 0, 7, 3, para_ids, lms, torch.device("cpu"))
    assert {"__float__", "cpu"} <= set(reads)


def test_the_shen_clipping_scope_follows_the_gate():
    # scope shen: the E/G update is clipped only while the adversarial term is in L_total (the gate, a tensor
    # here); a small limit so that clipping changes the update
    cfg = {**DEFAULTS, **CFG, "grad_clip_scope": "shen", "grad_clip": 0.5}
    plain, graphed, *_ = two_runs(VARIANTS["M0"], cfg, steps=60, same_model=True)
    assert {r["total"] == r["rec"] for r in plain} == {True, False}  # gated off at some steps, on at others
    assert plain == graphed
    # and the clipping matters: unclipped, the run leaves the clipped one
    loose, *_ = two_runs(
        VARIANTS["M0"], {**cfg, "grad_clip": None}, steps=60, same_model=True, paths=("plain",)
    )
    assert max(abs(a["rec"] - b["rec"]) for a, b in zip(plain, loose)) > 1e-3


def test_beyond_the_cap_a_shape_takes_the_plain_step():
    cfg = {**DEFAULTS, **CFG}
    plain, graphed, step_fn, batches = two_runs(VARIANTS["M0"], cfg, steps=40, max_graphs=2)
    keys = []
    for _, b0, b1 in batches:
        key = (max(map(len, b0 + b1)), len(b0), len(b1))
        if key not in keys:
            keys.append(key)
    assert len(keys) > 2  # the tiny corpus has more shapes than the cap
    beyond = sum((max(map(len, b0 + b1)), len(b0), len(b1)) not in keys[:2] for _, b0, b1 in batches)
    assert len(step_fn.inputs) == 2 and step_fn.plain_steps == beyond > 0
    assert plain[0] == graphed[0]
    assert_close(plain, graphed)


def test_a_non_finite_loss_stops_the_graphed_step():
    # each style's LM turns NaN from its third call, the third step: the same error as the plain step's
    cfg = {**DEFAULTS, **CFG}
    with pytest.raises(NonFiniteLoss, match=r"\(lm, total\) at step 3: .*rec=.*lm=nan"):
        two_runs(M7, cfg, steps=4, lm_nan_after=2, paths=("graphed",))


def test_the_setting_runs_graphs_on_cuda_only(caplog):
    vocab = setup()[0]
    cfg = {**DEFAULTS, **CFG}
    shen = build_model(cfg, len(vocab), resolve(M7))
    assert DEFAULTS["cuda_graph"] is False
    assert not use_cuda_graph(False, "cuda", shen, M7)
    with caplog.at_level(logging.WARNING):
        assert not use_cuda_graph(True, "cpu", shen, M7)
    assert "transfer.cuda_graph is ignored on cpu" in caplog.text
    assert unsupported(shen, M7) is None
    fu = {"model": "multi_decoder", "lambda_adv": 1}
    assert "packs the batch by lengths" in unsupported(build_model(cfg, len(vocab), resolve(fu)), fu)
    assert "attribute term" in unsupported(shen, {"lambda_attr": 1})
    with pytest.raises(ValueError, match="transfer.cuda_graph must be true or false, not 'yes'"):
        use_cuda_graph("yes", "cpu", shen, M7)
    if torch.cuda.is_available():
        assert use_cuda_graph(True, "cuda", shen.cuda(), M7)


def test_on_a_cpu_the_setting_trains_the_plain_path(tmp_path, caplog):
    # transfer.cuda_graph true on a CPU: logged and ignored; the run is the plain one, weights and losses bit for
    # bit, and one run resumes across the setting (it is not part of the run signature)
    with caplog.at_level(logging.WARNING):
        on = run(tmp_path / "on", cfg={**CFG, "cuda_graph": True}, device="cpu")
    assert "transfer.cuda_graph is ignored on cpu" in caplog.text
    off = run(tmp_path / "off", cfg=CFG, device="cpu")
    for k, v in off.state_dict().items():
        assert torch.equal(v, on.state_dict()[k]), k
    assert (tmp_path / "on" / "losses.csv").read_text() == (tmp_path / "off" / "losses.csv").read_text()
    run(tmp_path / "mixed", stop=3, cfg={**CFG, "cuda_graph": True}, device="cpu")
    resumed = run(tmp_path / "mixed", cfg=CFG, device="cpu")
    for k, v in off.state_dict().items():
        assert torch.equal(v, resumed.state_dict()[k]), k


def test_a_checkpoint_of_the_graphed_path_resumes_on_the_plain_one():
    # the graphed path's optimizers are fused, capturable Adam: their state_dict says so in its param groups.
    # Loaded into a CPU optimizer, the plain per-parameter kernel is restored (a capturable Adam cannot step on
    # a CPU), and the next update is the one the same state gives on the plain path.
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = Adam(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(4, 3)).pow(2).sum().backward()
        opt.step()
    plain_state = opt.state_dict()
    graphed_state = {**plain_state, "param_groups": [{**g, **adam_options("cuda", graphed=True)} for g in plain_state["param_groups"]]}  # fmt: skip
    assert graphed_state["param_groups"][0]["capturable"] is True
    grad = torch.randn(4, 3)
    after = {}
    for name, state in (("plain", plain_state), ("graphed", graphed_state)):
        m = torch.nn.Linear(3, 2)
        m.load_state_dict(model.state_dict())
        o = Adam(m.parameters(), lr=0.1)
        o.load_state_dict(copy.deepcopy(state))  # a loaded CPU step count is the dict's own tensor
        apply_adam_options(o, "cpu")
        assert o.param_groups[0]["capturable"] is False and o.param_groups[0]["fused"] is None
        m(grad).pow(2).sum().backward()
        o.step()
        after[name] = [p.detach().clone() for p in m.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(after["plain"], after["graphed"]))


def test_the_graphed_optimizers_are_capturable_on_cuda():
    assert adam_options("cuda", graphed=True) == {"foreach": False, "fused": True, "capturable": True}
    assert adam_options("cuda") == {"foreach": False, "fused": True, "capturable": False}
    assert adam_options("cpu", graphed=True) == {"foreach": None, "fused": None, "capturable": False}


def test_the_attribute_variant_is_left_to_the_plain_step():
    # Yu et al.'s term reads word lists per sentence: the trainer keeps the plain step for it
    vocab, train_s, *_ = setup()
    assert attribute_lists(train_s)  # the variant the test names exists in the suite's data
    variant = {"lambda_attr": 1}
    assert unsupported(build_model({**DEFAULTS, **CFG}, len(vocab), resolve(variant)), variant)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA (bench/gpu_check.sh runs it on a GPU)")
@pytest.mark.parametrize("name", ["M0", "M2", "M7"])
def test_the_cuda_graphs_give_the_plain_losses_over_200_steps(name):
    # the captured graphs (fused capturable Adam, graph-safe random numbers) against the plain step (fused Adam),
    # both in strict fp32: each term's mean over the last 50 steps within GPU_MEAN_RTOL, every step finite
    tf32 = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    try:
        cfg = {**DEFAULTS, **CFG}
        plain, graphed, step_fn, _ = two_runs(VARIANTS[name], cfg, device="cuda", capture=True)
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32
    assert step_fn.graphs and step_fn.plain_steps == 0  # the steps replayed graphs
    assert_means_close(plain, graphed, GPU_MEAN_RTOL)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA (bench/gpu_check.sh runs it on a GPU)")
def test_the_graphed_trainer_resumes_like_an_uninterrupted_run_on_cuda(tmp_path, caplog):
    # the trainer with transfer.cuda_graph on CUDA: 8 epochs of 4 steps, so each batch shape comes back often
    # enough to be captured and replayed; a run stopped after step 13 (checkpoint at step 12: the capturable
    # optimizers' state, the generator's state) and resumed ends with the uninterrupted run's weights, to the
    # float tolerance of CUDA kernels; a CPU checkpoint's optimizer (step counts on the CPU) resumes on it too
    cfg = {**CFG, "epochs": 8, "cuda_graph": True}
    with caplog.at_level(logging.INFO, logger="tst.train.graph_step"):
        full = run(tmp_path / "a", cfg=cfg, device="cuda")
    assert "CUDA graph 1 of at most" in caplog.text
    run(tmp_path / "b", stop=13, cfg=cfg, device="cuda")
    resumed = run(tmp_path / "b", cfg=cfg, device="cuda")
    for k, v in full.state_dict().items():
        torch.testing.assert_close(resumed.state_dict()[k], v, rtol=1e-3, atol=1e-4, msg=k)
    run(tmp_path / "c", stop=5, cfg=cfg, device="cpu")  # the plain path on the CPU (the setting is ignored)
    from_cpu = run(tmp_path / "c", cfg=cfg, device="cuda")
    assert next(from_cpu.parameters()).device.type == "cuda"
    for k, v in from_cpu.state_dict().items():
        assert torch.isfinite(v.float()).all(), k
