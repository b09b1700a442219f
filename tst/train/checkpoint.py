"""Checkpoints of a transfer run: {out}/checkpoints/ep{E}.pt, transfer.checkpoints_per_epoch per epoch (tst.names.epoch_label).

A checkpoint is a plain dict (loads with weights_only=True): "kind": "transfer", "model", "opt_g", "opt_d"
(state dicts), "rng", "step", "epoch", "vocab" (itos), "config" (the full training settings), "variant" (the
resolved variant: model name and every lambda) and "signature" (run_signature). A rerun resumes from the
latest one only when its signature matches, else it trains afresh; a latest one that fails to load is set aside
(ep{E}.pt.broken) and the one before it is resumed from."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
from pathlib import Path

import torch

from tst.models.registry import build_model
from tst.names import epoch_label, parse_checkpoint
from tst.variants import Variant, settings_read
from tst.vocab import Vocab

log = logging.getLogger(__name__)

# Settings a rerun may change and still resume: the length of training, how dev sets are decoded and whether soft
# decoding runs compiled (the same arithmetic).
RESUMABLE_CHANGES = ("epochs", "dev_batch_size", "decode_extra", "compile", "cuda_graph")


def run_signature(settings: dict, variant, vocab: Vocab, ids, seed: int, code: str = "") -> str:
    """What a checkpoint must have been trained with to be resumed from: every other setting, the resolved
    variant (the model and every lambda), the seed, the vocabulary, the training sentences (as ids) and the
    training code (code: its tst.codehash, tst.train.trainer.TRAINING_CODE), as one SHA-256. Settings the variant
    does not read (tst.variants.settings_read) are left out. With the code in it, a job that reruns because its
    code changed trains afresh instead of finishing the old code's run."""
    fixed = {k: v for k, v in settings_read(settings, variant).items() if k not in RESUMABLE_CHANGES}
    blob = json.dumps(
        [fixed, Variant.of(variant).as_dict(), seed, list(vocab.itos), ids, code], sort_keys=True
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def path_of(ckpt_dir, epoch: float) -> Path:
    return Path(ckpt_dir) / f"{epoch_label(epoch)}.pt"


def checkpoints(ckpt_dir) -> list[tuple[float, Path]]:
    """(epoch, path) of every ep{E}.pt in ckpt_dir, by epoch."""
    found = ((parse_checkpoint(p.stem), p) for p in Path(ckpt_dir).glob("ep*.pt"))
    return sorted((e, p) for e, p in found if e is not None)


def rng_state() -> dict:
    state = {"cpu": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state()
    return state


def set_rng_state(state: dict) -> None:
    """Restore rng_state()'s states. Both are byte tensors torch only takes on the CPU: a checkpoint loaded
    onto a GPU (load(path, "cuda")) brings them there."""
    torch.set_rng_state(state["cpu"].cpu())
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state(state["cuda"].cpu())


def save(
    path,
    model,
    opt_g,
    opt_d,
    step: int,
    epoch: float,
    vocab: Vocab,
    settings: dict,
    variant,
    signature: str,
) -> None:
    """Write a checkpoint (with the torch RNG state) to a temporary name, then rename it."""
    path = Path(path)
    ck = {
        "kind": "transfer",
        "model": model.state_dict(),
        "opt_g": opt_g.state_dict(),
        "opt_d": opt_d.state_dict(),
        "rng": rng_state(),
        "step": step,
        "epoch": epoch,
        "vocab": list(vocab.itos),
        "config": settings,
        "variant": Variant.of(variant).as_dict(),
        "signature": signature,
    }
    tmp = path.with_suffix(".tmp")
    torch.save(ck, tmp)
    os.replace(tmp, path)


def load(path, device=None) -> dict:
    """A checkpoint file -> its dict (tensors on `device`, default cpu)."""
    return torch.load(path, map_location=device or "cpu", weights_only=True)


# What loading a checkpoint that was cut short or damaged (a full disk, a bad copy) raises: torch's zip reader
# (RuntimeError), a truncated pickle (EOFError, UnpicklingError), a missing or wrong-shaped entry.
LOAD_ERRORS = (RuntimeError, EOFError, OSError, ValueError, KeyError, TypeError, pickle.UnpicklingError)
BROKEN = ".broken"  # suffix of a checkpoint set aside: ep1.5.pt -> ep1.5.pt.broken (no longer an ep*.pt)


def set_aside(path) -> Path:
    """Rename a checkpoint that cannot be loaded to {name}.broken (kept for a look; replaces an older one)."""
    path = Path(path)
    aside = path.with_name(path.name + BROKEN)
    os.replace(path, aside)
    return aside


def resume(ckpt_dir, signature: str, model, opt_g, opt_d, device=None) -> int:
    """Load the latest checkpoint of ckpt_dir into model, optimizers and the torch RNG when it has
    `signature`; returns its step (0 when there is none). A checkpoint that fails to load (truncated, damaged)
    is set aside (set_aside, with a warning) and the one before it is tried. Checkpoints of another run (other
    settings, data, vocabulary or code) are removed, so the run trains from scratch."""
    for _, path in reversed(checkpoints(ckpt_dir)):
        try:
            ck = load(path, device)
            if not isinstance(ck, dict):
                raise TypeError(f"a {type(ck).__name__}, not a checkpoint dict")
            if ck.get("signature") == signature:
                missing = [k for k in ("model", "opt_g", "opt_d", "rng", "step") if k not in ck]
                if missing:  # checked before anything is loaded into the model
                    raise KeyError(f"no {', '.join(missing)}")
                # first: a random state torch refuses leaves the model and optimizers as they were
                set_rng_state(ck["rng"])
                model.load_state_dict(ck["model"])
                opt_g.load_state_dict(ck["opt_g"])
                opt_d.load_state_dict(ck["opt_d"])
                return int(ck["step"])
        except LOAD_ERRORS as e:
            first = (str(e).strip().splitlines() or [""])[0][:200]
            log.warning(
                "%s: cannot be loaded (%s: %s); set aside as %s, resuming from the checkpoint before it",
                path,
                type(e).__name__,
                first,
                set_aside(path).name,
            )
            continue
        log.warning(
            "%s: checkpoints of a run with other settings, data, vocabulary or code; training from scratch "
            "(the stale ep*.pt files are removed)",
            ckpt_dir,
        )
        for _, stale in checkpoints(ckpt_dir):
            stale.unlink()
        return 0
    return 0


def variant_of(ck: dict) -> Variant:
    """The variant a checkpoint was trained with, with its settings (checkpoints written before variants named
    their model kept it in the settings and the lambdas apart)."""
    if "variant" in ck:
        return Variant.of(ck["variant"], ck["config"])
    return Variant.of({**ck["lambdas"], "model": ck["config"].get("model", "cross_aligned")}, ck["config"])


def model_from_checkpoint(ck: dict, device=None):
    """A loaded checkpoint dict -> (its variant's model with the trained weights, in eval mode; Vocab)."""
    vocab = Vocab(ck["vocab"][4:])
    v = variant_of(ck)
    model = build_model(v.settings, len(vocab), v)
    model.load_state_dict(ck["model"])
    return model.to(device or "cpu").eval(), vocab


def load_for_transfer(path, device=None):
    """A checkpoint file -> (model in eval mode, Vocab)."""
    return model_from_checkpoint(load(path, device), device)
