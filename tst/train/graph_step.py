"""The training step (tst.train.step.train_step) as one CUDA graph per batch shape: transfer.cuda_graph.

On a GPU the transfer models' step is bound by kernel launches (docs/gpu.md: about 1,400 launches for M0, 4,400
for M7, the GPU busy ~10% of the step). A CUDA graph records the kernels of the whole step once, forward,
both backward passes, the gradient clipping and both Adam updates (the discriminators' and the
encoder/generator's), and replays them with one launch. A graph replays fixed kernels on fixed memory, so:

- Static buffers. Each graph reads its batch from tensors allocated once for its shape (StaticInputs: per style
  the padded tokens, lengths and targets, the paraphrase pairs, and every value that changes from step to step:
  the soft-decoding temperature gamma and the weight of each loss term, which decay per epoch or rise over the
  lambda_cyc warm-up). A step copies its batch into them and replays; a Python number read while capturing
  would be frozen into the graph, so none of these is one. The graph's outputs (the loss terms, stacked) are
  read back once per step, after the replay.
- One graph per bucket. A graph's key is the batch's padded length L, its sizes per style (tst.train.batching.
  epoch_plan buckets the batches by length: Yelp's lengths give about 15 values of L, and the last batch of an
  epoch is smaller) and the set of terms that are on (lambda_cyc is 0 until its warm-up starts). The graph of
  a key is captured at the key's third batch (after WARMUP eager ones) and replayed from then on. At most
  `max_graphs` (MAX_GRAPHS) keys get buffers and graphs; a batch of a new key beyond them takes the plain step,
  logged once.
- Warm-up on a side stream. The first WARMUP occurrences of a shape run the same arithmetic eagerly, on a side
  stream as torch's CUDA-graph recipe has it (cuBLAS and cuDNN set up their handles and workspaces for that
  stream and choose their kernels, Adam creates its state outside the graph's memory); the captures run on the
  same stream, so nothing is set up while capturing. These are real training steps: nothing is run twice or
  undone.
- Capturable Adam. The optimizers are fused Adam with capturable=True (tst.optim.adam_options): the step count
  lives on the GPU and is incremented inside the graph. The state_dict is the plain Adam's: a checkpoint of
  this path resumes on the plain path and on a CPU (tst.optim.apply_adam_options).
- Random numbers. Dropout masks, the Gumbel noise of the soft decoding and the WGAN-GP interpolation draw from
  torch's CUDA generator, which is graph-safe: a captured graph registers it, and each replay draws fresh
  numbers from the generator's advancing offset. Its state is saved with the checkpoints as on the plain path.
- No host reads. The plain step reads losses back to the host three times: Shen et al.'s gating of the
  adversarial term (both D losses below adv_threshold), the clipping of the E/G update that follows it (scope
  shen) and the check for non-finite losses. Here the gate is a 0/1 tensor that multiplies the term's weight
  and the clipping norm (a norm of 0 scales by 1: unclipped), and the check runs on the step's losses after
  the replay: a non-finite loss raises the same NonFiniteLoss, after the update instead of before it, and no
  checkpoint is written after it. The model runs with graph_safe set (tst.models.cross_aligned.GRUDecoding):
  the encoder reads z at each row's last word instead of packing by lengths on the host, greedy decoding
  (eq. 4's x~) runs all its steps.
- Memory. The graphs share one memory pool. That is safe because no tensor in it carries a value from one
  replay to the next: the parameters, the optimizer state and the static inputs are allocated outside it, and
  each step's outputs are read before the next replay.

The arithmetic is the plain step's (tests/train/test_graph_step.py runs it eagerly over the static buffers on a
CPU and compares 200 steps with the plain path's losses; on CUDA the graphed run against the plain one,
bench/gpu_check.sh). It covers Shen et al.'s cross-aligned models (M0-M7); Fu et al.'s models (their encoder
packs by lengths on the host) and the attribute term (it builds its word bags on the host) take the plain step
(unsupported).
"""

from __future__ import annotations

import logging
from collections import Counter
from contextlib import contextmanager

import numpy as np
import torch

from tst.models import losses as L
from tst.models.cross_aligned import CrossAligned
from tst.train.batching import pad_batch
from tst.train.step import (
    D_TERMS,
    G_TERMS,
    Step,
    _check_finite,
    clip_generator,
    clip_gradients,
    needs_transfer,
    plain_step,
    update_discriminators,
)
from tst.variants import Variant

log = logging.getLogger(__name__)

# At most this many graphs per training: Yelp's lengths (1-15 words) x (the full batch and an epoch's last one)
# x (lambda_cyc off and on) stay under it.
MAX_GRAPHS = 64
# Eager runs of a shape before its graph is captured (torch's recipe warms up on a side stream before capture).
WARMUP = 2
# The per-step values a graph reads from its static buffer: gamma and every term's weight.
SCALARS = ("gamma", "rec", *G_TERMS)


def unsupported(model, variant) -> str | None:
    """Why the graphed step cannot train this model and variant (None: it can)."""
    if not isinstance(model, CrossAligned):
        return f"{type(model).__name__}'s encoder packs the batch by lengths on the host"
    if Variant.of(variant)["lambda_attr"] > 0:
        return "the attribute term (lambda_attr) builds its word bags on the host"
    return None


def use_cuda_graph(setting, device, model, variant) -> bool:
    """Whether training takes the graphed step: transfer.cuda_graph is true, the device is CUDA and the model and
    variant are covered (unsupported); otherwise the plain step, with the reason logged when the setting asked
    for graphs."""
    if setting not in (True, False):
        raise ValueError(f"transfer.cuda_graph must be true or false, not {setting!r}")
    if not setting:
        return False
    if torch.device(device).type != "cuda":
        log.warning(
            "transfer.cuda_graph is ignored on %s: CUDA graphs need a CUDA device; the plain step", device
        )
        return False
    why = unsupported(model, variant)
    if why:
        log.warning("transfer.cuda_graph is ignored for this variant: %s; the plain step", why)
        return False
    return True


@contextmanager
def graph_safe(model):
    """The model without host reads (GRUDecoding.graph_safe) inside the block."""
    model.graph_safe = True
    try:
        yield model
    finally:
        model.graph_safe = False


class StaticInputs:
    """The tensors one graph reads: per style (tokens [B, L], lengths [B], targets [B, L+1]); per style the
    paraphrase batch (u tokens [P, Lp], u lengths [P], v targets [P, Lp+1]) when eq. 5 is on; and `scalars`, the
    values of SCALARS (gamma, each term's weight)."""

    def __init__(self, sizes: tuple[int, int], length: int, para: tuple[int, int] | None, device):
        def seqs(n, m):
            return (
                torch.zeros(n, m, dtype=torch.long, device=device),
                torch.ones(n, dtype=torch.long, device=device),
                torch.zeros(n, m + 1, dtype=torch.long, device=device),
            )

        self.batch = [seqs(n, length) for n in sizes]
        self.para = [seqs(*para) for _ in (0, 1)] if para else None
        self.scalars = torch.zeros(len(SCALARS), device=device)
        self.value = {name: self.scalars[i] for i, name in enumerate(SCALARS)}  # 0-dim views

    def fill(self, batch: list, para: list | None, scalars: dict) -> None:
        """Copy a step's padded host tensors (pad_batch's, per style) and values into the buffers."""
        for dst, src in zip(self.batch + (self.para or []), batch + (para or [])):
            for d, s in zip(dst, src):
                d.copy_(s, non_blocking=True)
        self.scalars.copy_(torch.tensor([float(scalars[k]) for k in SCALARS]))


def paraphrase_batch(pairs: list, cfg: dict, seed: int, step: int, length: int) -> list:
    """tst.train.step.g_para's random batch of eq. 5 for this step (the same draws), each side padded to
    `length` (the longest sentence of all the pairs) so that every step has one shape."""
    rng = np.random.default_rng([seed, 1, step])
    out = []
    for t in (0, 1):
        idx = rng.integers(0, len(pairs[t]), cfg["para_batch_size"])
        u_tok, u_len, _ = pad_batch([pairs[t][i][0] for i in idx], length)
        _, _, v_tgt = pad_batch([pairs[t][i][1] for i in idx], length)
        out.append((u_tok, u_len, v_tgt))
    return out


def graph_core(model, opt_g, opt_d, x: StaticInputs, s: Step, amp: bool) -> tuple[list, torch.Tensor]:
    """train_step's update on the static buffers, with no host read (what a graph records): -> (the names of
    the loss terms, their values stacked). s: the step's Step over x.batch (its Python weights say which terms
    are on); the weights that multiply come from x.value."""
    cfg, w = s.cfg, x.value
    model.train()
    device_type = x.scalars.device.type
    # autocast's cast cache would keep casts of the weights from capture time: off under graphs (torch's rule)
    autocast = torch.autocast(device_type, dtype=torch.bfloat16, enabled=amp, cache_enabled=False)
    terms: dict[str, torch.Tensor] = {}
    with graph_safe(model):
        with autocast:
            rec = []
            for t in (0, 1):
                tokens, lengths, targets = s.batch[t]
                z = s.zs[t] = model.encode(tokens, lengths, t)
                s.h_real[t], logits = model.teacher_force(z, t, targets)
                rec.append(L.nll(logits, targets))  # eq. 2
                if needs_transfer(s):
                    s.h_fake[t], s.f_logits[t], s.f_probs[t] = model.soft_decode(
                        z, 1 - t, targets.size(1), w["gamma"], cfg["soft_decoding"]
                    )
            rec = terms["rec"] = torch.cat(rec).mean()
            for d_term in D_TERMS:
                s.d_terms.update(d_term(s))
        if s.d_terms:
            update_discriminators(opt_d, s.d_terms, cfg)
        terms.update(s.d_terms)

        gate = None  # Shen et al.'s gating of the adversarial term, 1 or 0
        with autocast:
            total = w["rec"] * rec
            added = []
            for name, g_term in G_TERMS.items():
                if s.weight(name) <= 0:
                    continue
                weight = w[name]
                if name == "adv":
                    value, _ = model.adversarial_loss(s.zs, s.h_real, s.h_fake, s.d_terms, None)
                    threshold = cfg["adv_threshold"]
                    if threshold is not None:
                        gate = ((s.d_terms["d0"] < threshold) & (s.d_terms["d1"] < threshold)).to(
                            weight.dtype
                        )
                        weight = weight * gate
                elif name == "para":  # eq. 5 on the static paraphrase batch (g_para draws it on the host)
                    value = sum(L.paraphrase_loss(model, *x.para[t], t) for t in (0, 1)) / 2
                else:
                    value, _ = g_term(s)
                terms[name] = value
                total = total + weight * value
                added.append(name)
        terms["total"] = total
        opt_g.zero_grad(set_to_none=True)
        total.backward()
        params = opt_g.param_groups[0]["params"]
        if clip_generator(cfg["grad_clip_scope"], added) and cfg["grad_clip"] is not None:
            if gate is None or cfg["grad_clip_scope"] == "all":
                clip_gradients(params, cfg["grad_clip"])
            else:  # scope shen: clipped when the gate is on; a norm of 0 scales by min(limit / 1e-6, 1) = 1
                grads = [p.grad for p in params if p.grad is not None]
                norm = torch.nn.utils.get_total_norm(grads)
                torch.nn.utils.clip_grads_with_norm_(params, cfg["grad_clip"], norm * gate)
        opt_g.step()
    names = list(terms)
    return names, torch.stack([terms[k].detach().float() for k in names])


class GraphedStep:
    """train_step for a whole training (tst.train.trainer.train): call it with a step's batch, it returns the
    step's loss terms as float. capture False runs graph_core eagerly over the static buffers, with no graph
    (what a CPU can check)."""

    def __init__(
        self,
        model,
        opt_g,
        opt_d,
        variant,
        cfg: dict,
        device,
        amp: bool = False,
        paraphrase=None,
        lms=None,
        capture: bool | None = None,
        max_graphs: int = MAX_GRAPHS,
    ):
        self.model, self.opt_g, self.opt_d = model, opt_g, opt_d
        self.lam, self.cfg, self.device, self.amp = Variant.of(variant), cfg, torch.device(device), amp
        self.paraphrase, self.lms = paraphrase, lms
        self.capture = self.device.type == "cuda" if capture is None else capture
        self.max_graphs = max_graphs
        # the plain step, for the shapes beyond max_graphs
        self.plain = plain_step(model, opt_g, opt_d, variant, cfg, self.device, amp, paraphrase, lms)
        self.para_len = None
        if paraphrase and self.lam["lambda_para"] > 0:
            self.para_len = max(max(len(u), len(v), 1) for t in (0, 1) for u, v in paraphrase[t])
        self.inputs: dict = {}  # key -> StaticInputs
        self.graphs: dict = {}  # key -> (torch.cuda.CUDAGraph, names, stacked outputs)
        self.seen: Counter = Counter()  # eager runs per key
        self.pool = None
        self.stream = None  # the side stream of the warm-ups and the captures
        self.plain_steps = 0  # steps that took the plain path (shapes beyond max_graphs)
        self._warned = False

    def __call__(self, b0, b1, epoch: int, step: int, seed: int, attrs=None, cyc_scale: float = 1.0) -> dict:
        cfg = self.cfg
        gamma = max(cfg["gamma_min"], cfg["gamma_init"] * cfg["gamma_decay"] ** epoch)
        length = max(max(len(s) for s in b0), max(len(s) for s in b1))
        probe = Step(
            self.model, None, self.lam, cfg, epoch, step, seed, self.device, None, self.lms, None, cyc_scale
        )
        on = tuple(name for name in ("rec", *G_TERMS) if probe.weight(name) > 0)
        key = (length, (len(b0), len(b1)), on)
        if key not in self.inputs and len(self.inputs) >= self.max_graphs:
            if not self._warned:
                log.warning(
                    "%d batch shapes have graphs (transfer.cuda_graph's limit): a batch of another shape "
                    "(length %d, %d + %d sentences) takes the plain step",
                    self.max_graphs,
                    length,
                    len(b0),
                    len(b1),
                )
                self._warned = True
            self.plain_steps += 1
            return self.plain(b0, b1, epoch, step, seed, attrs, cyc_scale)
        if key not in self.inputs:
            para_shape = (cfg["para_batch_size"], self.para_len) if "para" in on else None
            self.inputs[key] = StaticInputs(key[1], length, para_shape, self.device)
        x = self.inputs[key]
        para = None
        if "para" in on:
            para = paraphrase_batch(self.paraphrase, cfg, seed, step, self.para_len)
        scalars = {"gamma": gamma, **{name: probe.weight(name) for name in SCALARS[1:]}}
        x.fill([pad_batch(b0, length), pad_batch(b1, length)], para, scalars)
        s = Step(
            self.model,
            x.batch,
            self.lam,
            cfg,
            epoch,
            step,
            seed,
            self.device,
            None,
            self.lms,
            None,
            cyc_scale,
        )
        if not self.capture:
            names, out = graph_core(self.model, self.opt_g, self.opt_d, x, s, self.amp)
        elif key in self.graphs:
            graph, names, out = self.graphs[key]
            graph.replay()
        elif self.seen[key] < WARMUP:
            self.seen[key] += 1
            if self.stream is None:
                self.stream = torch.cuda.Stream(self.device)
            self.stream.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(self.stream):
                names, out = graph_core(self.model, self.opt_g, self.opt_d, x, s, self.amp)
            torch.cuda.current_stream(self.device).wait_stream(self.stream)
        else:
            names, out = self._capture(key, x, s)
        values = dict(zip(names, out.tolist()))  # the step's one read back to the host
        _check_finite(step, values)
        return values

    def _capture(self, key, x: StaticInputs, s: Step):
        """Record graph_core on x as a graph (the recording runs nothing), keep it, and replay it once: this
        step's update."""
        # the gradients of the recording are allocated from the graph's memory as backward writes them
        self.opt_g.zero_grad(set_to_none=True)
        self.opt_d.zero_grad(set_to_none=True)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool, stream=self.stream):
            names, out = graph_core(self.model, self.opt_g, self.opt_d, x, s, self.amp)
        if self.pool is None:
            self.pool = graph.pool()
        self.graphs[key] = (graph, names, out)
        log.info(
            "CUDA graph %d of at most %d: length %d, %d + %d sentences, terms %s",
            len(self.graphs),
            self.max_graphs,
            key[0],
            *key[1],
            "+".join(key[2]),
        )
        graph.replay()
        return names, out
