"""torch.optim.Adam without the 3-second import torch wraps around it.

torch (2.13) marks the optimizer's methods as not to be compiled: `Adam.step` through
torch.optim.optimizer._use_grad_for_differentiable, `zero_grad`, `add_param_group`, `state_dict` and
`load_state_dict` through torch._compile._disable_dynamo. Both wrappers import torch._dynamo when first called.
That import costs ~3 s of CPU in every process that trains: py-spy of a demo naturalness job found 3.1 s of its
5.5 s there. The wrappers only matter under torch.compile, which nothing here uses.

Adam below therefore calls torch's own methods without those wrappers. The arithmetic, the state and the
checkpoints are the same. tests/test_optim.py checks bit-identical parameters and state against
torch.optim.Adam, and that no torch._dynamo import happens.
"""

import inspect

import torch

# torch's undecorated methods: inspect.unwrap follows each wrapper's __wrapped__ to the function it wraps
_RAW = {
    name: inspect.unwrap(getattr(torch.optim.Adam, name))
    for name in ("step", "zero_grad", "add_param_group", "state_dict", "load_state_dict")
}


class Adam(torch.optim.Adam):
    """torch.optim.Adam (Kingma & Ba 2015), same arguments; do not use it under torch.compile."""

    def step(self, closure=None):
        # what _use_grad_for_differentiable does around the step, minus its two torch._dynamo.graph_break() calls
        with torch.set_grad_enabled(self.defaults["differentiable"]):
            return _RAW["step"](self, closure)

    def zero_grad(self, set_to_none: bool = True) -> None:
        _RAW["zero_grad"](self, set_to_none)

    def add_param_group(self, param_group: dict) -> None:
        _RAW["add_param_group"](self, param_group)

    def state_dict(self) -> dict:
        return _RAW["state_dict"](self)

    def load_state_dict(self, state_dict: dict) -> None:
        _RAW["load_state_dict"](self, state_dict)


def adam_options(device, graphed: bool = False) -> dict:
    """Adam's implementation on `device` (the update's arithmetic is the same): on CUDA the fused kernel, one
    launch for every parameter's update instead of several per parameter (11% of a transfer model's step on an
    H100, docs/gpu.md); elsewhere torch's default, the per-parameter loop, whose results the CPU runs and their
    checkpoints are. graphed: the update runs inside a CUDA graph (tst.train.graph_step), so on CUDA the fused
    kernel is capturable: it reads its step count and writes its state on the GPU, with no host value that a
    graph would freeze. Also applied to the param groups of a resumed optimizer (apply_adam_options)."""
    if torch.device(device).type == "cuda":
        return {"foreach": False, "fused": True, "capturable": graphed}
    return {"foreach": None, "fused": None, "capturable": False}


def apply_adam_options(opt: torch.optim.Optimizer, device, graphed: bool = False) -> None:
    """Set adam_options(device, graphed) on every param group (after load_state_dict, which brings the saving
    device's and path's: a checkpoint of the graphed path resumes on the plain one and on a CPU, and back)."""
    opts = adam_options(device, graphed)
    for group in opt.param_groups:
        group.update(opts)
        if opts["fused"] or opts["capturable"]:  # these kernels read the step count on the parameter's device
            for p in group["params"]:
                state = opt.state.get(p, {})
                if "step" in state:
                    state["step"] = state["step"].to(p.device, torch.float32)
