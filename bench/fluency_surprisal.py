"""One more fluency candidate (issue 22 item 7; not a test): the acceptability LSTM reading, beside each token's
embedding, how surprising the token is to the joint LM and to a unigram model.

python bench/fluency_surprisal.py --results RESULTS_DIR [--joined /tmp/fluency_final/joined.tsv] [--work DIR]

Declared before its correlations were seen, and tried once: the default acceptability set-up (tst.evaluators.
acceptability: the training sentences vs one negative each, half LM-continued, half 1-2 of six edits; final
punctuation stripped; dev = the same task with corruption seed + 1), an LSTM 128/128 as the default's, whose input
at each position is [word embedding; log P_LM(w_i | w_<i); log P_unigram(w_i)] (<bos>: 0, 0; <eos>: the LM's
log P(<eos>), log P_unigram(<eos>)), Adam 1e-3, batch 64, at most 6 epochs, early stopping on dev accuracy
(patience 1), seed 1. The idea: the LM features carry local errors (sentence level), the LSTM over words and
surprisal learns what LM-typical generated text looks like (system level).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from fluency_candidates import DATA, li_outputs, unigram_logprobs
from fluency_followup import levels
from torch import nn

from tst.evaluators.acceptability import REAL, classifier_input, corpus_pool, labelled_set, load_acceptability
from tst.evaluators.language_model import load_lm
from tst.io import read_sentences
from tst.vocab import Vocab


class SurprisalLSTM(nn.Module):
    def __init__(self, vocab_size: int, emb_dim: int = 128, hidden_dim: int = 128, dropout: float = 0.2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=0)
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(emb_dim + 2, hidden_dim, batch_first=True)
        self.out = nn.Linear(hidden_dim, 1)

    def forward(self, ids, feats, lengths):
        x = torch.cat([self.dropout(self.embedding(ids)), feats], -1)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.out(self.dropout(h[-1])).squeeze(-1)


def featurize(x, vocab: Vocab, lm, ulp, scale: float = 10.0):
    """x: classifier inputs (<bos> words <eos>) -> (ids, per-token [lm_lp, unigram_lp] / scale)."""
    words = [s[1:-1] for s in x]
    nll = lm.token_nll(words)
    ids, feats = [], []
    for s, w, a in zip(x, words, nll):
        ids.append(vocab.encode(s))
        u = (
            [0.0]
            + [float(ulp[lm.vocab.stoi.get(t, lm.vocab.unk_id)]) for t in w]
            + [float(ulp[lm.vocab.eos_id])]
        )
        lp = [0.0] + list(-a)
        feats.append(np.stack([lp, u], 1) / scale)
    return ids, feats


def batch(ids, feats, idx):
    n = max(len(ids[i]) for i in idx)
    t = torch.zeros(len(idx), n, dtype=torch.long)
    f = torch.zeros(len(idx), n, 2)
    for r, i in enumerate(idx):
        t[r, : len(ids[i])] = torch.tensor(ids[i])
        f[r, : len(ids[i])] = torch.tensor(feats[i], dtype=torch.float32)
    return t, f, torch.tensor([len(ids[i]) for i in idx])


@torch.no_grad()
def p_real(model, ids, feats):
    model.eval()
    out = np.zeros(len(ids))
    for s in range(0, len(ids), 256):
        idx = list(range(s, min(s + 256, len(ids))))
        out[idx] = torch.sigmoid(model(*batch(ids, feats, idx))).numpy()
    return out  # P(label 1); label 1 = REAL below


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", required=True, type=Path)
    ap.add_argument("--joined", default=Path("/tmp/fluency_final/joined.tsv"), type=Path)
    ap.add_argument("--work", default=Path("/tmp/fluency_surprisal"), type=Path)
    args = ap.parse_args()
    torch.set_num_threads(1)
    args.work.mkdir(parents=True, exist_ok=True)
    r, cpu = args.results, torch.device("cpu")
    train = read_sentences(r / "data/train.0.txt") + read_sentences(r / "data/train.1.txt")
    dev = read_sentences(r / "data/dev.0.txt") + read_sentences(r / "data/dev.1.txt")
    vocab = Vocab.load(r / "data/vocab.txt")
    lm = load_lm(r / "evaluators/lm_joint.pt", cpu)
    default = load_acceptability(r / "evaluators/acceptability.pt", cpu)
    c = dict(default.corruption)
    ulp, _ = unigram_logprobs(train, lm.vocab)
    t0 = time.perf_counter()
    pool = corpus_pool(train)
    x, y, _ = labelled_set(train, c, pool, True, lm)
    dx, dy, _ = labelled_set(dev, {**c, "seed": int(c["seed"]) + 1}, pool, True, lm)
    ids, feats = featurize(x, vocab, lm, ulp)
    dids, dfeats = featurize(dx, vocab, lm, ulp)
    yt = torch.tensor([1.0 if v == REAL else 0.0 for v in y])
    dyn = np.array([1.0 if v == REAL else 0.0 for v in dy])
    print(f"data + features {time.perf_counter() - t0:.0f} s: {len(ids)} train, {len(dids)} dev")
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    model = SurprisalLSTM(len(vocab))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    best, best_state, bad = -1.0, None, 0
    for epoch in range(6):
        model.train()
        order = rng.permutation(len(ids))
        for s in range(0, len(order), 64):
            idx = order[s : s + 64]
            loss = nn.functional.binary_cross_entropy_with_logits(model(*batch(ids, feats, idx)), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        acc = float(((p_real(model, dids, dfeats) > 0.5) == dyn).mean())
        print(f"epoch {epoch + 1}: dev accuracy {acc:.4f} ({time.perf_counter() - t0:.0f} s)")
        if acc > best:
            best, best_state, bad = acc, {k: v.clone() for k, v in model.state_dict().items()}, 0
        else:
            bad += 1
            if bad >= 1:  # patience 1, as the default
                break
    model.load_state_dict(best_state)
    outs = li_outputs(DATA)
    scores = {}
    for s, o in outs.items():
        ids_o, feats_o = featurize(classifier_input(o, True), vocab, lm, ulp)
        scores[s] = p_real(model, ids_o, feats_o)
    joined = pd.read_csv(args.joined, sep="\t")
    n0 = len(read_sentences(r / "data/test.0.txt"))
    score = np.array(
        [scores[s][n0 * st + ln] for s, st, ln in zip(joined.system, joined.source_style, joined.line)]
    )
    sys_r, sent_r = levels(score, joined)
    print(f"surprisal LSTM: dev accuracy {best:.4f}; system Spearman {sys_r:+.3f}, sentence {sent_r:+.3f}")
    pd.DataFrame({"system": joined.system, "score": score}).to_csv(
        args.work / "scores.tsv", sep="\t", index=False
    )


if __name__ == "__main__":
    main()
