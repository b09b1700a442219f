"""Throughput of the torch evaluators (not a test): training steps and inference on random token ids.

python bench/bench_evaluators.py [--device cpu|cuda] [--threads 1] [--vocab 9000] [--batch 64] [--len 12]
Prints one JSON line per measurement (sentences/s for classifiers, tokens/s for the LM).
"""

from __future__ import annotations

import argparse
import json

import torch
import torch.nn.functional as F
from timing import timed  # bench/timing.py (scripts run as python bench/<name>.py)

from tst.device import pick_device
from tst.models.gru_lm import GRULanguageModel
from tst.models.lstm_classifier import LSTMClassifier
from tst.models.text_cnn import TextCNN


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=9000)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--len", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = pick_device(args.device)
    ids = torch.randint(4, args.vocab, (args.batch, args.len), device=device)
    y = torch.randint(0, 2, (args.batch,), device=device)
    models = {
        "text_cnn": TextCNN(args.vocab, 128, (3, 4, 5), 128),
        "lstm_classifier": LSTMClassifier(args.vocab, 128, 128),
        "gru_lm": GRULanguageModel(args.vocab, 128, 256),
    }
    for name, model in models.items():
        model.to(device)
        opt = torch.optim.Adam(model.parameters(), 1e-3)

        def loss(model=model, name=name):
            out = model(ids)
            if name == "text_cnn":
                return F.cross_entropy(out, y)
            if name == "lstm_classifier":
                return F.binary_cross_entropy_with_logits(out, y.float())
            return F.cross_entropy(out.transpose(1, 2), ids)

        def step(opt=opt, loss=loss):
            opt.zero_grad()
            loss().backward()
            opt.step()

        def infer(model=model):
            with torch.no_grad():
                model(ids)

        model.train()
        t_train = timed(step, device, args.repeats)
        model.eval()
        t_inf = timed(infer, device, args.repeats)
        unit = args.batch * (args.len if name == "gru_lm" else 1)
        print(json.dumps({"model": name, "device": str(device), "threads": args.threads, "batch": args.batch,
                          "len": args.len, "params": sum(p.numel() for p in model.parameters()),
                          "train_per_s": round(unit / t_train, 1), "infer_per_s": round(unit / t_inf, 1),
                          "unit": "tokens" if name == "gru_lm" else "sentences"}))


if __name__ == "__main__":
    main()
