"""Throughput of the torch evaluators (not a test): training steps and inference on random token ids.

python bench/bench_evaluators.py [--device cpu|cuda] [--threads 1] [--vocab 9000] [--batch 64] [--len 12]
                                 [--precision fp32 bf16] [--repeats 10]
Prints one JSON line per model and precision (sentences/s for classifiers, tokens/s for the LM). With several
precisions each gets its own copy of the model from the same initialization and their training steps are
interleaved (fp32 step k, bf16 step k, ...), so the timings are paired and share whatever else loads the
machine; bf16 is torch.autocast(bfloat16) around the forward pass, as the evaluators' `precision: bf16`
(tst.evaluators.training.fit); fp32 on CUDA has TF32 matmuls and fused Adam, as they train. Inference is timed in fp32, as the evaluators score.
"""

from __future__ import annotations

import argparse
import copy
import json
import time

import numpy as np
import torch
import torch.nn.functional as F
from timing import sync, timed  # bench/timing.py (scripts run as python bench/<name>.py)

from tst.device import allow_tf32, pick_device
from tst.models.gru_lm import GRULanguageModel
from tst.models.lstm_classifier import LSTMClassifier
from tst.models.text_cnn import TextCNN
from tst.optim import adam_options


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=9000)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--len", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--precision", nargs="+", default=["fp32"], choices=["fp32", "bf16"])
    ap.add_argument("--models", nargs="+", default=["text_cnn", "lstm_classifier", "gru_lm"])
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = pick_device(args.device)
    allow_tf32(device)  # fp32 on CUDA as the evaluators train (TF32 matmuls); bf16 autocast is unaffected
    ids = torch.randint(4, args.vocab, (args.batch, args.len), device=device)
    y = torch.randint(0, 2, (args.batch,), device=device)
    models = {
        "text_cnn": lambda: TextCNN(args.vocab, 128, (3, 4, 5), 128),
        "lstm_classifier": lambda: LSTMClassifier(args.vocab, 128, 128),
        "gru_lm": lambda: GRULanguageModel(args.vocab, 128, 256),
    }
    for name in args.models:
        base = models[name]().to(device)
        runs = []
        for precision in args.precision:
            model = copy.deepcopy(base)
            runs.append(
                {
                    "precision": precision,
                    "model": model,
                    "times": [],
                    "losses": [],
                    "opt": torch.optim.Adam(
                        model.parameters(), 1e-3, **adam_options(device)
                    ),  # fused on CUDA
                }
            )

        def loss(model, name=name):
            out = model(ids)
            if name == "text_cnn":
                return F.cross_entropy(out.float(), y)
            if name == "lstm_classifier":
                return F.binary_cross_entropy_with_logits(out.float(), y.float())
            return F.cross_entropy(out.float().transpose(1, 2), ids)

        for k in range(args.repeats + 1):  # step 0 warms up
            for r in runs:
                model, opt = r["model"], r["opt"]
                model.train()
                sync(device)
                t0 = time.perf_counter()
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=r["precision"] == "bf16"):
                    out = loss(model)
                opt.zero_grad()
                out.backward()
                opt.step()
                sync(device)
                if k:
                    r["times"].append(time.perf_counter() - t0)
                    r["losses"].append(float(out.detach()))
        unit = args.batch * (args.len if name == "gru_lm" else 1)
        for r in runs:
            model = r["model"].eval()

            def infer(model=model):
                with torch.no_grad():
                    model(ids)

            t_train = float(np.mean(r["times"]))
            print(
                json.dumps(
                    {
                        "model": name,
                        "precision": r["precision"],
                        "device": str(device),
                        "threads": args.threads,
                        "batch": args.batch,
                        "len": args.len,
                        "vocab": args.vocab,
                        "params": sum(p.numel() for p in model.parameters()),
                        "train_per_s": round(unit / t_train, 1),
                        "infer_per_s": round(unit / timed(infer, device, args.repeats), 1),
                        "last_loss": round(r["losses"][-1], 4),
                        "unit": "tokens" if name == "gru_lm" else "sentences",
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
