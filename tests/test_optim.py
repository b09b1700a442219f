"""tst.optim.Adam is torch.optim.Adam, bit for bit, without importing torch._dynamo."""

import copy
import subprocess
import sys

import pytest
import torch

from tst.optim import Adam


def _train(opt_cls, steps=6, **kw):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(20, 8), torch.nn.GRU(8, 6, batch_first=True))
    opt = opt_cls(model.parameters(), **kw)
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        x = torch.randint(0, 20, (4, 5), generator=g)
        out, _ = model(x)
        opt.zero_grad()
        out.pow(2).mean().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        opt.step()
    return model, opt


@pytest.mark.parametrize(
    "kw",
    [{"lr": 1e-2}, {"lr": 6e-3, "betas": (0.5, 0.999)}, {"lr": 1e-3, "weight_decay": 0.1}],
)
def test_same_parameters_and_state_as_torch_adam(kw):
    ours, our_opt = _train(Adam, **kw)
    theirs, their_opt = _train(torch.optim.Adam, **kw)
    for a, b in zip(ours.parameters(), theirs.parameters(), strict=True):
        assert torch.equal(a, b)
    ours_sd, theirs_sd = our_opt.state_dict(), their_opt.state_dict()
    assert ours_sd["param_groups"] == theirs_sd["param_groups"]
    for k, st in theirs_sd["state"].items():
        for name in ("step", "exp_avg", "exp_avg_sq"):
            assert torch.equal(ours_sd["state"][k][name], st[name]), (k, name)


def test_state_dict_round_trip_resumes_identically():
    """A checkpoint's optimizer state loads into either class and the next steps agree (resumed training)."""
    model, opt = _train(Adam, steps=3, lr=1e-2)
    twin = torch.nn.Sequential(torch.nn.Embedding(20, 8), torch.nn.GRU(8, 6, batch_first=True))
    twin.load_state_dict(model.state_dict())
    resumed = torch.optim.Adam(twin.parameters(), lr=1e-2)
    resumed.load_state_dict(copy.deepcopy(opt.state_dict()))  # as a checkpoint file holds it: a copy
    for m, o in ((model, opt), (twin, resumed)):
        x = torch.arange(10).reshape(2, 5)
        o.zero_grad()
        m(x)[0].sum().backward()
        o.step()
    for a, b in zip(model.parameters(), twin.parameters(), strict=True):
        assert torch.equal(a, b)


SCRIPT = """
import sys, torch
from tst.optim import Adam
model = torch.nn.GRU(4, 4)
opt = {cls}(model.parameters(), lr=1e-3)
with torch.autocast("cpu", dtype=torch.bfloat16):
    out, _ = model(torch.randn(3, 2, 4))
out.float().sum().backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
opt.step()
opt.zero_grad()
opt.load_state_dict(opt.state_dict())
print("torch._dynamo" in sys.modules)
"""


@pytest.mark.parametrize("cls,imports_dynamo", [("Adam", "False"), ("torch.optim.Adam", "True")])
def test_a_training_step_imports_no_dynamo(cls, imports_dynamo):
    """Ours trains without the torch._dynamo import; torch's own Adam imports it (the check can fail)."""
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(cls=cls)], capture_output=True, text=True, check=True
    )
    assert r.stdout.strip() == imports_dynamo
