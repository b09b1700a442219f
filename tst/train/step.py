"""One update of Pang & Gimpel (2019) §4.6's training: (1) the discriminators on L_adv / L_adv', then (2) the
encoder/generator on
    L_total = l_rec L_rec + l_para L_para + l_cyc L_cyc + l_lm L_lang - l_adv (L_adv0 + L_adv1)
              - l_adv2 2^-ep (L_adv'0 + L_adv'1),
each loss term one registered function of the step (Step) with its equation. The loop around it (epochs,
checkpoints, resume, files) is tst.train.trainer."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from tst.models import losses as L
from tst.train.batching import pad_batch
from tst.variants import Variant


def clip_gradients(params, limit: float | None) -> None:
    """Rescale the gradients of `params` to global 2-norm <= limit (None: leave them)."""
    if limit is not None:
        torch.nn.utils.clip_grad_norm_(params, limit)


class NonFiniteLoss(FloatingPointError):
    pass


def _check_finite(step: int, terms: dict) -> None:
    vals = {k: float(v.detach()) if torch.is_tensor(v) else float(v) for k, v in terms.items()}
    bad = [k for k, v in vals.items() if not math.isfinite(v)]
    if bad:
        shown = ", ".join(f"{k}={v:.4g}" for k, v in vals.items())
        raise NonFiniteLoss(
            f"non-finite loss ({', '.join(bad)}) at step {step}: {shown}; the last good checkpoint is kept"
        )


@dataclass
class Step:
    """What the loss terms of one update read: the model (tst.models.base.TransferModel), the padded two-style
    batch, what the forward pass computed (z, teacher-forced and soft-decoded hidden states, the transfers'
    logits and probabilities), the discriminator losses of this step, and the variant, settings and extra
    inputs."""

    model: torch.nn.Module
    batch: list  # per style: (tokens, lengths, targets)
    lam: Variant
    cfg: dict
    epoch: int
    step: int
    seed: int
    device: object
    paraphrase: list | None
    lms: list | None
    attrs: list | None
    cyc_scale: float
    zs: list = field(default_factory=lambda: [None, None])
    h_real: list = field(default_factory=lambda: [None, None])
    h_fake: list = field(default_factory=lambda: [None, None])
    f_logits: list = field(default_factory=lambda: [None, None])
    f_probs: list = field(default_factory=lambda: [None, None])
    d_terms: dict = field(default_factory=dict)

    def weight(self, term: str) -> float:
        """The weight of a term this step: its lambda (tst.variants.LAMBDAS: lambda_{term}); eq. 7's lambda_6
        decays per epoch (lambda_adv2 adv2_decay^ep, ep = self.epoch + adv2_first_epoch: 1 numbers the epochs
        from 1 as Shen et al.'s loop), lambda_cyc rises over its warm-up (cyc_scale)."""
        lam = self.lam[f"lambda_{term}"]
        if term == "adv2":
            return lam * self.cfg["adv2_decay"] ** (self.epoch + self.cfg["adv2_first_epoch"])
        if term == "cyc":
            return self.cyc_scale * lam
        return lam


# A variant's step: the reconstruction (eq. 2) plus the terms below, each one function registered in the order
# of definition (the order of the sum and of the losses.csv columns); a new loss term is one function here
# (and its lambda in tst.variants.LAMBDAS).
D_TERMS: dict = {}  # update 1, the discriminators: function -> the names of the losses it returns
G_TERMS: dict = {}  # update 2, L_total: name -> function


def d_term(*names: str):
    """Register a discriminator term (update 1): Step -> {name: loss}, {} when the term is off this step."""

    def add(f):
        D_TERMS[f] = names
        return f

    return add


def g_term(name: str, reads_transfer=False):
    """Register a term of L_total (update 2): Step -> (value, weight; None when the value is only logged this
    step), or None when the term is off (its weight is 0). reads_transfer: whether it reads the soft-decoded
    transfers (h~, their logits and probabilities), or a function of the model saying so."""

    def add(f):
        f.reads_transfer = reads_transfer
        G_TERMS[name] = f
        return f

    return add


# ---- the discriminators' terms (update 1) ----
@d_term("d0", "d1")
def d_adv(s: Step) -> dict:
    """The model's adversary: eq. 3, D_t separates h_t from h~_{1-t}; Fu et al. eq. 8, the classifier learns
    the style of c."""
    if s.weight("adv") <= 0:
        return {}
    return s.model.adversary_loss(s.zs, s.h_real, s.h_fake)


@d_term("d2_0", "d2_1")
def d_adv2(s: Step) -> dict:
    """eq. 7: the WGAN-GP critics D'_t (cross_aligned: tst.models.registry)."""
    if s.weight("adv2") <= 0:
        return {}
    return {
        f"d2_{t}": L.wgan_critic_loss(
            s.model.disc2[t], s.h_real[t].detach(), s.h_fake[1 - t].detach(), s.cfg["gp_xi"], s.cfg["gp_at"]
        )
        for t in (0, 1)
    }


# ---- the terms of L_total (update 2) ----
@g_term("adv", reads_transfer=lambda model: model.adversary_reads_transfer)
def g_adv(s: Step):
    """The model's adversarial term: eq. 3, -(L_adv0 + L_adv1), added only while both D losses are below
    adv_threshold (Shen et al.); Fu et al. eq. 9, the encoder maximizes the classifier's entropy."""
    lam = s.weight("adv")
    if lam <= 0:
        return None
    adv, on = s.model.adversarial_loss(s.zs, s.h_real, s.h_fake, s.d_terms, s.cfg["adv_threshold"])
    return adv, (lam if on else None)


@g_term("adv2", reads_transfer=True)
def g_adv2(s: Step):
    """eq. 7: the generator's side of the WGAN-GP pair."""
    lam = s.weight("adv2")
    if lam <= 0:
        return None
    return sum(L.wgan_g_loss(s.model.disc2[t], s.h_real[t], s.h_fake[1 - t]) for t in (0, 1)), lam


@g_term("cyc")
def g_cyc(s: Step):
    """eq. 4: x_t -> style 1-t -> back to x_t (sum / 2k), lambda_cyc times the warm-up factor."""
    lam = s.weight("cyc")
    if lam <= 0:
        return None
    b = s.batch
    drop = s.cfg["cyc_dropout"]
    return sum(L.cyclic_loss(s.model, *b[t], t, b[t][2].size(1), drop) for t in (0, 1)) / 2, lam


@g_term("para")
def g_para(s: Step):
    """eq. 5: a random batch of same-style paraphrase pairs per style (sum / 2k)."""
    lam = s.weight("para")
    if lam <= 0:
        return None
    rng = np.random.default_rng([s.seed, 1, s.step])
    para = 0.0
    for t in (0, 1):
        pairs = s.paraphrase[t]
        idx = rng.integers(0, len(pairs), s.cfg["para_batch_size"])
        u_tok, u_len, _ = pad_batch([pairs[i][0] for i in idx], device=s.device)
        _, _, v_tgt = pad_batch([pairs[i][1] for i in idx], device=s.device)
        para = para + L.paraphrase_loss(s.model, u_tok, u_len, v_tgt, t)
    return para / 2, lam


@g_term("lm", reads_transfer=True)
def g_lm(s: Step):
    """eq. 6: the LM of the target style 1-t along the soft transfer of x_t (lm_norm mean: sum / 2, as eqs. 4
    and 5; sum: both styles summed)."""
    lam = s.weight("lm")
    if lam <= 0:
        return None
    lm = sum(L.lm_loss(s.f_logits[t], s.f_probs[t], s.lms[1 - t]) for t in (0, 1))
    return (lm / 2 if s.cfg["lm_norm"] == "mean" else lm), lam


@g_term("attr", reads_transfer=True)
def g_attr(s: Step):
    """Yu et al. §5.2 on the (soft) transfer of x_t; attrs[t]: (independent, dependent) ids per sentence."""
    lam = s.weight("attr")
    if lam <= 0:
        return None
    return sum(attribute_term(s.model.embed.weight, s.f_probs[t], s.attrs[t]) for t in (0, 1)), lam


# the losses.csv columns of the terms: L_total, the reconstruction, then every registered term
TERMS = ["total", "rec", *G_TERMS, *(name for names in D_TERMS.values() for name in names)]


CLIP_SCOPES = ("all", "shen")


def clip_generator(scope: str, added: list[str]) -> bool:
    """Whether the E/G update is clipped: always (scope all), or, as Shen et al.'s final code, when the
    adversarial term is in L_total this step (scope shen; `added`: the terms summed into it)."""
    if scope not in CLIP_SCOPES:
        raise ValueError(f"transfer.grad_clip_scope must be one of {', '.join(CLIP_SCOPES)}, not {scope!r}")
    return scope == "all" or "adv" in added


def needs_transfer(s: Step) -> bool:
    """Whether a term that is on this step reads the soft-decoded transfers (h~, their logits and
    probabilities)."""
    for name, g in G_TERMS.items():
        reads = g.reads_transfer(s.model) if callable(g.reads_transfer) else g.reads_transfer
        if reads and s.weight(name) > 0:
            return True
    return False


def train_step(
    model,
    opt_g,
    opt_d,
    b0,
    b1,
    lam,
    cfg: dict,
    epoch: int,
    step: int,
    seed: int,
    paraphrase=None,
    lms=None,
    device=None,
    amp: bool = False,
    attrs=None,
    cyc_scale: float = 1.0,
) -> dict:
    """One alternating update on a two-style batch (step counts from 1); lam: the variant (tst.variants.Variant,
    or its dict), cfg: the settings over tst.train.trainer.DEFAULTS; cyc_scale: the warm-up factor of lambda_cyc
    (tst.train.trainer.cyc_factor). Every NLL term (rec,
    cyc, para) is summed over tokens and divided by the 2k sentences of both styles, as Shen et al.'s
    loss_g (reduce_sum / batch_size). Returns every loss term as float."""
    model.train()
    gamma = max(cfg["gamma_min"], cfg["gamma_init"] * cfg["gamma_decay"] ** epoch)
    L_ = max(max(len(s) for s in b0), max(len(s) for s in b1))
    batch = [pad_batch(b0, L_, device), pad_batch(b1, L_, device)]  # tokens, lengths, targets per style
    autocast = torch.autocast(device.type if device is not None else "cpu", dtype=torch.bfloat16, enabled=amp)
    s = Step(
        model,
        batch,
        Variant.of(lam),
        cfg,
        epoch,
        step,
        seed,
        device,
        paraphrase,
        lms,
        attrs,
        cyc_scale,
    )
    terms: dict[str, torch.Tensor] = {}
    with autocast:
        rec = []
        for t in (0, 1):
            tokens, lengths, targets = batch[t]
            z = s.zs[t] = model.encode(tokens, lengths, t)
            s.h_real[t], logits = model.teacher_force(z, t, targets)
            rec.append(L.nll(logits, targets))  # eq. 2
            if needs_transfer(
                s
            ):  # x_t transferred to style 1-t, soft-decoded for as many steps as the real one
                s.h_fake[t], s.f_logits[t], s.f_probs[t] = model.soft_decode(
                    z, 1 - t, targets.size(1), gamma, cfg["soft_decoding"]
                )
        rec = terms["rec"] = torch.cat(rec).mean()  # sum / 2k
        # (1) the discriminators, on detached inputs
        for d_term in D_TERMS:
            s.d_terms.update(d_term(s))
    if s.d_terms:
        _check_finite(step, {**terms, **s.d_terms})
        update_discriminators(opt_d, s.d_terms, cfg)
    terms.update(s.d_terms)

    # (2) encoder + generator on L_total = sum of lambda x term, against the just-updated discriminators
    with autocast:
        total = s.weight("rec") * rec
        added = []
        for name, g_term in G_TERMS.items():
            out = g_term(s)
            if out is None:
                continue
            terms[name], weight = out
            if weight is not None:
                total = total + weight * terms[name]
                added.append(name)
    terms["total"] = total
    _check_finite(step, terms)
    opt_g.zero_grad(set_to_none=True)
    total.backward()
    if clip_generator(cfg["grad_clip_scope"], added):
        clip_gradients(opt_g.param_groups[0]["params"], cfg["grad_clip"])
    opt_g.step()
    return {k: float(v.detach()) if torch.is_tensor(v) else float(v) for k, v in terms.items()}


def plain_step(model, opt_g, opt_d, lam, cfg: dict, device, amp: bool, paraphrase=None, lms=None):
    """train_step for one training, as a function of what changes from step to step:
    (b0, b1, epoch, step, seed, attrs, cyc_scale) -> the loss terms (tst.train.trainer; the graphed step's
    fallback, tst.train.graph_step.GraphedStep, is called the same way)."""

    def step_fn(b0, b1, epoch: int, step: int, seed: int, attrs=None, cyc_scale: float = 1.0) -> dict:
        return train_step(
            model,
            opt_g,
            opt_d,
            b0,
            b1,
            lam,
            cfg,
            epoch,
            step,
            seed,
            paraphrase,
            lms,
            device,
            amp,
            attrs,
            cyc_scale,
        )

    return step_fn


def update_discriminators(opt_d, d_terms: dict, cfg: dict) -> None:
    """(1) of the step: one Adam update of the discriminators on the sum of their terms, clipped with
    grad_clip_scope all (train_step, and tst.train.graph_step inside its graph)."""
    opt_d.zero_grad(set_to_none=True)
    sum(d_terms.values()).backward()
    if cfg["grad_clip_scope"] == "all":
        clip_gradients(opt_d.param_groups[0]["params"], cfg["grad_clip"])
    opt_d.step()


def attribute_term(embedding: torch.Tensor, probs: torch.Tensor, attrs) -> torch.Tensor:
    """Yu et al. §5.2 for one style's soft transfers probs [B, T, V]; attrs: (independent ids, dependent ids)
    per row. E(y) is the mean soft output embedding probs @ W. The embedding table W is a fixed lookup here
    (detached): its gradient would otherwise move word vectors to satisfy the cosine terms instead of changing
    what G outputs; the gradient reaches G through probs only."""
    W = embedding.detach()
    out_repr = (probs.float() @ W.float()).mean(1)
    indep, has_i = _bag(W, [a[0] for a in attrs])
    dep, has_d = _bag(W, [a[1] for a in attrs])
    return L.attribute_loss(out_repr, indep, dep, has_i, has_d)


def _bag(W: torch.Tensor, lists) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean (fixed) embedding of each id list -> ([B, D], has [B] = 1 where the list is non-empty)."""
    W = W.detach().float()
    reps = torch.zeros(len(lists), W.size(1), device=W.device)
    has = torch.zeros(len(lists), device=W.device)
    for i, ids in enumerate(lists):
        if ids:
            reps[i] = W[torch.tensor(ids, device=W.device)].mean(0)
            has[i] = 1.0
    return reps, has
