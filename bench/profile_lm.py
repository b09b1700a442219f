"""Where one epoch of the PP language model's training goes (issue 28, item 1): not a test.

python bench/profile_lm.py --data results/yelp/data [--threads 1] [--steps 30] [--precision fp32]

On the prepared training text of a dataset (train.{0,1}.txt and vocab.txt of `--data`; the joint LM's corpus),
with config.yaml's `evaluators.lm` sizes (tst.models.gru_lm.GRULanguageModel, batch size, Adam, clip 5), it
times on real batches from tst.evaluators.training.bucketed_batches:

- the whole training step (forward, loss, backward, clip, Adam step) as tst.evaluators.training.fit runs it;
- its parts, by timing prefixes of the step: embedding + GRU forward, + output layer (logits), + loss,
  + backward, + clip and optimizer step (each part = the difference of two prefixes);
- the output layer's share by ablation: the same step with the output layer cut to 64 words;
- data handling (tst.evaluators.language_model.lm_batch on the id lists) and padding waste (padded positions
  over real target tokens, with and without the length bucketing);
- tokens/s and the achieved GFLOP/s against the issue's count: per target token 6 (E H + H^2) for the GRU and
  2 H V for the output layer, times 3 for forward + backward.

Prints one JSON object; the epoch estimate is tokens per epoch / tokens per second.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch
import torch.nn.functional as F
import yaml

from tst.defaults import ROOT
from tst.evaluators.language_model import lm_batch
from tst.evaluators.training import bucketed_batches
from tst.io import read_sentences
from tst.models.gru_lm import GRULanguageModel
from tst.vocab import Vocab


def flops_per_token(emb: int, hidden: int, vocab: int) -> float:
    """Forward + backward FLOPs per target token (the issue's count; embedding lookup and softmax ignored)."""
    return 3.0 * (6.0 * (emb * hidden + hidden * hidden) + 2.0 * hidden * vocab)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="a prepared data folder (results/<dataset>/data)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--precision", default="fp32", choices=["fp32", "bf16"])
    ap.add_argument(
        "--adaptive",
        nargs="+",
        type=int,
        default=None,
        help="also time the step with torch's AdaptiveLogSoftmaxWithLoss (Grave et al. 2017; div_value 4) "
        "in place of the output layer and loss, with these cutoffs (vocabulary ids are most frequent first)",
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())["evaluators"]["lm"]
    sents = [s for t in (0, 1) for s in read_sentences(f"{args.data}/train.{t}.txt")]
    vocab = Vocab.load(f"{args.data}/vocab.txt")
    ids = [vocab.encode(s) for s in sents]
    lengths = np.array([len(s) + 1 for s in ids])  # targets: the words and <eos>
    batches = bucketed_batches([len(s) for s in ids], cfg["batch_size"], np.random.default_rng(1))
    timed_batches = batches[: args.steps]
    amp = args.precision == "bf16"

    def padding(batch_list) -> float:
        padded = sum(len(b) * int(lengths[b].max()) for b in batch_list)
        return padded / float(lengths.sum())

    rng = np.random.default_rng(1)
    order = rng.permutation(len(ids))
    unbucketed = [order[i : i + cfg["batch_size"]] for i in range(0, len(order), cfg["batch_size"])]

    t0 = time.perf_counter()
    prepared = [lm_batch([ids[i] for i in b], vocab) for b in batches]
    data_s = time.perf_counter() - t0

    def make(out_size: int):
        """The LM; with out_size < |V| its output layer cut to out_size words (the ablation)."""
        torch.manual_seed(1)
        m = GRULanguageModel(len(vocab), cfg["emb_dim"], cfg["hidden_dim"], cfg["n_layers"], cfg["dropout"])
        if out_size != len(vocab):
            m.out = torch.nn.Linear(cfg["hidden_dim"], out_size)
        return m, torch.optim.Adam(m.parameters(), lr=cfg["lr"])

    def step(m, opt, inp, tgt, upto: int) -> None:
        """The training step up to part `upto` (1 embedding + GRU, 2 logits, 3 loss, 4 backward, 5 clip + Adam)."""
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            h, _ = m.gru(m.drop(m.embedding(inp)))
            if upto >= 2:
                logits = m.out(m.drop(h))
            if upto >= 3:
                loss = F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=vocab.pad_id)
        if upto >= 4:
            opt.zero_grad(set_to_none=True)
            loss.backward()
        if upto >= 5:
            torch.nn.utils.clip_grad_norm_(m.parameters(), cfg["clip"])
            opt.step()

    def seconds(out_size: int, upto: int) -> float:
        m, opt = make(out_size)
        m.train()
        inp0, tgt0 = prepared[0]
        step(m, opt, inp0, tgt0 if out_size == len(vocab) else tgt0 % out_size, upto)  # warm-up
        t = time.perf_counter()
        for k in range(len(timed_batches)):
            inp, tgt = prepared[k]
            if out_size != len(vocab):
                tgt = torch.where(tgt == vocab.pad_id, tgt, tgt % out_size)
            step(m, opt, inp, tgt, upto)
        return (time.perf_counter() - t) / len(timed_batches)

    def adaptive_seconds(cutoffs: list[int]) -> float:
        """The whole step with an adaptive softmax head (exact normalized log-probabilities) instead."""
        m, _ = make(len(vocab))
        m.out = torch.nn.AdaptiveLogSoftmaxWithLoss(cfg["hidden_dim"], len(vocab), cutoffs, div_value=4.0)
        opt = torch.optim.Adam(m.parameters(), lr=cfg["lr"])
        m.train()

        def one(inp, tgt):
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
                h, _ = m.gru(m.drop(m.embedding(inp)))
                keep = tgt.reshape(-1) != vocab.pad_id
                loss = m.out(m.drop(h).reshape(-1, h.shape[-1])[keep], tgt.reshape(-1)[keep]).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), cfg["clip"])
            opt.step()

        one(*prepared[0])
        t = time.perf_counter()
        for k in range(len(timed_batches)):
            one(*prepared[k])
        return (time.perf_counter() - t) / len(timed_batches)

    prefix = {upto: seconds(len(vocab), upto) for upto in (1, 2, 3, 4, 5)}
    small = seconds(64, 5)
    tokens = float(sum(lengths[b].sum() for b in timed_batches)) / len(timed_batches)
    full = prefix[5]
    names = ["embedding + GRU forward", "output layer forward", "loss", "backward", "clip + Adam"]
    parts = {n: prefix[k + 1] - (prefix[k] if k else 0.0) for k, n in enumerate(names)}
    fpt = flops_per_token(cfg["emb_dim"], cfg["hidden_dim"], len(vocab))
    n_batches = len(batches)
    out = {
        "threads": args.threads,
        "precision": args.precision,
        "vocab": len(vocab),
        "sentences": len(ids),
        "target_tokens": int(lengths.sum()),
        "batches_per_epoch": n_batches,
        "step_s": round(full, 5),
        "parts_s": {n: round(v, 5) for n, v in parts.items()},
        "parts_share": {n: round(v / full, 3) for n, v in parts.items()},
        "output_layer_share_by_ablation": round((full - small) / full, 3),
        "step_s_vocab64": round(small, 5),
        "data_s_per_batch": round(data_s / n_batches, 6),
        "padding_ratio_bucketed": round(padding(batches), 4),
        "padding_ratio_unbucketed": round(padding(unbucketed), 4),
        "tokens_per_s": round(tokens / full, 1),
        "mflop_per_token": round(fpt / 1e6, 2),
        "achieved_gflops": round(tokens / full * fpt / 1e9, 1),
        "epoch_s_estimate": round(n_batches * full, 1),
    }
    if args.adaptive:
        ada = adaptive_seconds(args.adaptive)
        counts = np.bincount(
            np.concatenate([np.array(s + [vocab.eos_id]) for s in ids]), minlength=len(vocab)
        )
        out["adaptive"] = {
            "cutoffs": args.adaptive,
            "step_s": round(ada, 5),
            "speedup": round(full / ada, 2),
            "tokens_per_s": round(tokens / ada, 1),
            "head_token_share": round(float(counts[: args.adaptive[0]].sum() / counts.sum()), 4),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
