"""Shared training loop of the torch evaluators: length-bucketed batches, Adam, early stopping on dev."""

from __future__ import annotations

import copy
import math
import random
import time

import numpy as np
import torch

from tst.defaults import evaluator_defaults
from tst.device import allow_tf32, use_bf16
from tst.names import check_epochs, checkpoint_steps
from tst.optim import Adam, adam_options
from tst.progress import Progress

# What fit() reads of its settings: every trainable evaluators.<section> of config.yaml holds each of them, and
# a library call gets them from there (tst.defaults.evaluator_defaults), never from a literal here.
FIT_KEYS = (
    "precision",
    "seed",
    "lr",
    "lr_schedule",
    "batch_size",
    "max_epochs",
    "evals_per_epoch",
    "patience",
    "clip",
)


def resolved(section: str, model_cfg: dict | None, train_cfg: dict | None, model_keys) -> tuple[dict, dict]:
    """(model config, training config) of a training call on evaluators.<section>: the caller's keys over the
    section's resolved block (tst.defaults.evaluator_defaults) - the model's keys `model_keys` and FIT_KEYS (and the
    device, when set) only, so a checkpoint records what its training read."""
    block = evaluator_defaults(section)
    model = {**{k: block[k] for k in model_keys if k in block}, **(model_cfg or {})}
    train = {**{k: block[k] for k in (*FIT_KEYS, "device") if k in block}, **(train_cfg or {})}
    return model, train


# evaluators.precision auto on a CPU with bf16 in hardware (tst.device.cpu_has_bf16): bf16 autocast in the
# training steps: faster with the same dev perplexity and accuracy within seed noise (the figures:
# docs/transfer_experiments.md section 3).
CPU_AUTO_BF16 = True


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = False  # same kernels every run on CUDA
    torch.backends.cudnn.deterministic = True


# Scoring batches (capped_batches): at most this many padded tokens (sentences x the longest one's length).
# 256 sentences of up to 32 tokens fit, so the batches of normal text (Yelp outputs reach 27 tokens with <bos>
# and <eos>) are the fixed 256-sentence chunks they always were and the scores stay bit-identical; a long line
# shrinks its own batch instead of padding 255 others to its length (a 1 MB line of 200,000 words used to make
# the LMs' logits 256 x 200,000 x |V| floats). The LMs' logits, the largest tensor, are at most 8,192 x |V|
# floats (0.33 GB for |V| = 10,000). Longer normal text (IMDB dev sentences of up to 41 tokens) gets smaller
# batches for its longest sentences: the Kim CNN's scores stay bit-identical (masked padding), the LSTM's and
# the LMs' move by float32 rounding (measured on a random model: 6e-8 in P, 1e-6 in a token's NLL).
EVAL_MAX_TOKENS = 8192


def capped_batches(lengths, batch_size: int, max_tokens: int | None = None) -> list[np.ndarray]:
    """Index batches for evaluation, sorted by length (stable; callers restore the order). A batch closes at
    batch_size sentences, or before the next sentence when taking it would pad the batch past max_tokens
    ((members + 1) x its length: the sentences come in increasing length, so it is the longest). A sentence
    longer than max_tokens is a batch of its own. lengths: each sentence's length as the model reads it;
    max_tokens: default EVAL_MAX_TOKENS."""
    max_tokens = EVAL_MAX_TOKENS if max_tokens is None else max_tokens
    lengths = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    batches, start = [], 0
    for k in range(1, len(order) + 1):
        if (
            k == len(order)
            or k - start == batch_size
            or (k - start + 1) * int(lengths[order[k]]) > max_tokens
        ):
            batches.append(order[start:k])
            start = k
    return batches


def bucketed_batches(lengths: list[int], batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Training batches of similar length: shuffle, sort inside pools of 50 batches, shuffle the batch order
    (evaluation batches: capped_batches)."""
    lengths = np.asarray(lengths)
    order = rng.permutation(len(lengths))
    pool = batch_size * 50
    batches = []
    for i in range(0, len(order), pool):
        chunk = order[i : i + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches += [chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


LR_SCHEDULES = ("constant", "linear")


def lr_schedule(cfg: dict, total_steps: int):
    """cfg["lr_schedule"]: constant (Adam at cfg["lr"] throughout; None is returned and the optimizer's
    rate is never touched) | linear: step s of total_steps (0-based; every batch of max_epochs epochs) at
    lr (1 - s / total_steps), down to lr / total_steps at the last step, as in BERT's fine-tuning (Devlin et al.
    2019). Early stopping does not stretch it: training that stops early stops at a higher rate."""
    kind = cfg["lr_schedule"]
    if kind not in LR_SCHEDULES:
        raise ValueError(f"lr_schedule: {kind!r} is not one of {', '.join(LR_SCHEDULES)}")
    if kind == "constant":
        return None
    lr = float(cfg["lr"])
    return lambda s: lr * (1.0 - s / total_steps)


def fit(
    model: torch.nn.Module,
    lengths: list[int],
    batch_loss,
    evaluate,
    cfg: dict,
    higher_is_better: bool,
    log=print,
    start: float | None = None,
    what: str = "training",
) -> dict:
    """Train with Adam until the dev score (evaluate(model) -> float) has not improved for cfg["patience"]
    evaluations or cfg["max_epochs"] epochs are done; the model ends with its best weights. The dev score is
    taken cfg["evals_per_epoch"] times per epoch (1: at each epoch's end; 2: every half epoch), after the
    batches where the transfer models write their checkpoints (tst.names.checkpoint_steps: ceil(j n / k)).
    batch_loss(model, index_array, device) -> scalar loss. cfg["precision"] (auto | bf16 | fp32,
    tst.device.use_bf16): bf16 autocast around batch_loss; weights, optimizer and the dev evaluation stay fp32.
    start: the dev score of the weights training starts from (a warm start), to beat; they are kept when no
    evaluation beats it. Returns the training history (one entry per evaluation; "epoch" = epochs done, e.g.
    1.5), the best score, why training stopped and the precision used. cfg holds every FIT_KEYS key (resolved).
    Progress: `what` with the steps done of the total and the time left, every tst.progress.EVERY_S seconds."""
    device = next(model.parameters()).device
    missing = [k for k in FIT_KEYS if k not in cfg]
    if missing:
        raise KeyError(f"training settings without {missing}: resolve them (tst.defaults.evaluator_defaults)")
    amp = use_bf16(cfg["precision"], device, CPU_AUTO_BF16)
    if not amp:
        allow_tf32(device)
    rng = np.random.default_rng(cfg["seed"])
    opt = Adam(model.parameters(), lr=cfg["lr"], **adam_options(device))
    k, max_epochs, batch_size = int(cfg["evals_per_epoch"]), cfg["max_epochs"], int(cfg["batch_size"])
    check_epochs(max_epochs, k)
    lr_at = lr_schedule(cfg, max_epochs * -(-len(lengths) // batch_size))
    step = 0
    best, best_state, bad, history = start, copy.deepcopy(model.state_dict()), 0, []
    stopped = f"max_epochs {max_epochs}"
    progress = None
    for epoch in range(1, math.ceil(max_epochs) + 1):
        batches = bucketed_batches(lengths, batch_size, rng)
        if progress is None:  # the total: max_epochs epochs of this many batches (fewer when stopped early)
            progress = Progress(math.ceil(max_epochs * len(batches)), what, bar=False, say=log)
        points = checkpoint_steps(len(batches), k)  # {batch: fraction of the epoch}
        model.train()
        t0, total, n = time.perf_counter(), 0.0, 0
        for b, idx in enumerate(batches, 1):
            if lr_at is not None:
                for group in opt.param_groups:
                    group["lr"] = lr_at(step)
            step += 1
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
                loss = batch_loss(model, idx, device)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if cfg["clip"]:
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
            opt.step()
            progress.update()
            total += float(loss.detach()) * len(idx)
            n += len(idx)
            if b not in points:
                continue
            train_s = time.perf_counter() - t0  # logged only: a saved model must not depend on the clock
            model.eval()
            with torch.no_grad():
                score = float(evaluate(model))
            done = round(epoch - 1 + points[b], 3) if k > 1 else epoch
            improved = best is None or (score > best if higher_is_better else score < best)
            history.append({"epoch": done, "train_loss": total / max(n, 1), "dev": score})
            log(f"epoch {done}: train loss {total / max(n, 1):.4f} dev {score:.4f} ({train_s:.1f}s)")
            model.train()
            t0, total, n = time.perf_counter(), 0.0, 0
            if improved:
                best, best_state, bad = score, copy.deepcopy(model.state_dict()), 0
            else:
                bad += 1
                if bad >= cfg["patience"]:
                    stopped = f"patience {cfg['patience']} at epoch {done}"
                    break
            if done >= max_epochs:  # a fractional max_epochs ends at its evaluation
                break
        if stopped.startswith("patience"):
            break
    model.load_state_dict(best_state)
    model.eval()
    return {
        "best_dev": best,
        "epochs": history,
        "stopped": stopped,
        "precision": "bf16" if amp else "fp32",
    }


def cpu_state_dict(model: torch.nn.Module) -> dict:
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
