"""Greedy transfer of a corpus with a trained model (dev transfers every half epoch, test transfers)."""

from __future__ import annotations

import torch

from tst.data.bpe import SPACE, unbpe
from tst.io import write_lines
from tst.train.batching import pad_batch
from tst.vocab import Vocab


@torch.no_grad()
def transfer_sentences(model, vocab: Vocab, sentences, style: int, batch_size: int = 128,
                       device=None, extra_len: int = 5) -> list[list[str]]:
    """Rewrite token lists of `style` into style 1 - style (argmax decoding); output order = input order.
    A model over BPE pieces (a vocabulary of sentencepiece '▁' pieces) gives word-level outputs, as the
    metrics read words."""
    was_training = model.training
    model.eval()
    device = device or next(model.parameters()).device
    bpe = any(t.startswith(SPACE) for t in vocab.itos)
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    out: list[list[str]] = [[] for _ in sentences]
    for b in range(0, len(order), batch_size):
        idx = order[b:b + batch_size]
        tokens, lengths, _ = pad_batch([vocab.encode(sentences[i]) for i in idx], device=device)
        z = model.encode(tokens, lengths, style)
        ids = model.greedy(z, 1 - style, tokens.size(1) + extra_len).cpu().tolist()
        for i, row in zip(idx, ids):
            out[i] = unbpe(" ".join(vocab.decode(row))).split() if bpe else vocab.decode(row)
    model.train(was_training)
    return out


def write_transfers(path, outputs, entities=None, unmasked_path=None) -> None:
    """Write outputs (token lists) one per line; with NER entities also the unmasked version."""
    write_lines(path, (" ".join(s) for s in outputs))
    if entities is not None and unmasked_path is not None:
        from tst.nlp.ner import unmask  # written by the NER helper
        write_lines(unmasked_path, (" ".join(unmask(s, e)) for s, e in zip(outputs, entities)))
