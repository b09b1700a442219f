"""Where a cross-aligned training step spends its time (Pang & Gimpel M0 at paper dimensions).

python bench/profile_transfer.py [--device cpu|cuda] [--steps 5] [--threads 1] [--data DIR]
                                 [--compile default|reduce-overhead|max-autotune]
Times, per two-style batch of 64 + 64 real Yelp sentences: the whole train_step (M0), the teacher-forced
autoencoder (encode + teacher_force, forward + backward), and the soft-decoded transfer that feeds the
discriminators (soft_decode, forward + backward): the sequential loop that dominates a step.
--compile wraps soft_decode in torch.compile (reduce-overhead = CUDA graphs on a GPU); its compile time is
reported apart (one compile per distinct batch length; the timed batch has one length).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from timing import timed  # bench/timing.py (scripts run as python bench/<name>.py)

from tst.defaults import paper_transfer
from tst.io import read_sentences
from tst.models import losses as L
from tst.models.registry import build_model
from tst.stages import transfer_settings
from tst.train.batching import epoch_plan, pad_batch
from tst.train.step import train_step
from tst.train.trainer import use_bf16, with_defaults
from tst.variants import resolve
from tst.vocab import Vocab


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--compile", default=None, help="torch.compile mode for soft_decode")
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/data/yelp/shen"))
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    sents = [[s for s in read_sentences(f"{args.data}/sentiment.dev.{t}") if len(s) <= 15] for t in (0, 1)]
    vocab = Vocab.build(sents[0] + sents[1], min_count=5)
    ids = [[vocab.encode(s) for s in sents[t]] for t in (0, 1)]
    # configs/paper_dimensions.yaml's settings over config.yaml's
    cfg, lam = with_defaults(transfer_settings({"transfer": paper_transfer()})), resolve({})  # M0
    amp = use_bf16(cfg["precision"], device)
    torch.manual_seed(0)
    model = build_model(cfg, len(vocab), lam).to(device)
    opt_g = torch.optim.Adam(model.generator_parameters(), lr=cfg["lr"])
    opt_d = torch.optim.Adam(model.discriminator_parameters(), lr=cfg["lr"])
    i0, i1 = epoch_plan([len(s) for s in ids[0]], [len(s) for s in ids[1]], cfg["batch_size"], 0, 0)[0]
    b0, b1 = [ids[0][i] for i in i0], [ids[1][i] for i in i1]
    T = max(len(s) for s in b0 + b1)
    batch = [pad_batch(b, T, device) for b in (b0, b1)]
    model.train()
    compile_s = None
    if args.compile:
        model.soft_decode = torch.compile(model.soft_decode, mode=args.compile)
        t0 = time.perf_counter()
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            model.soft_decode(model.encode(*batch[0][:2], 0), 1, batch[0][2].size(1), 1.0)
        compile_s = time.perf_counter() - t0

    def autoencoder():
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            loss = sum(
                L.nll(model.teacher_force(model.encode(tok, ln, t), t, tg)[1], tg).mean()
                for t, (tok, ln, tg) in enumerate(batch)
            )
        loss.backward()

    def soft_transfer():
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            loss = 0.0
            for t, (tok, ln, tg) in enumerate(batch):
                h, logits, _ = model.soft_decode(model.encode(tok, ln, t), 1 - t, tg.size(1), 1.0)
                loss = loss + h.float().square().mean() + logits.float().square().mean()
        loss.backward()

    def step():
        train_step(model, opt_g, opt_d, b0, b1, lam, cfg, 0, 1, 0, device=device, amp=amp)

    res = {
        "device": str(device),
        "bf16": amp,
        "compile": args.compile,
        "compile_s": compile_s,
        "vocab": len(vocab),
        "batch_len": T + 1,
        "step_s": timed(step, device, args.steps),
        "autoencoder_fwd_bwd_s": timed(autoencoder, device, args.steps),
        "soft_transfer_fwd_bwd_s": timed(soft_transfer, device, args.steps),
    }
    res["soft_share_of_step"] = res["soft_transfer_fwd_bwd_s"] / res["step_s"]
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
