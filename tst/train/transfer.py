"""Transfer of a corpus with a trained model: greedy dev transfers at every checkpoint, test transfers greedy or by
beam search (transfer.beam_width)."""

from __future__ import annotations

import logging
from pathlib import Path

import torch

from tst.data.bpe import SPACE, unbpe
from tst.device import pick_device
from tst.io import read_jsonl, read_sentences, write_lines
from tst.train.batching import pad_batch
from tst.train.checkpoint import load, model_from_checkpoint
from tst.vocab import Vocab

log = logging.getLogger(__name__)


@torch.no_grad()
def transfer_sentences(
    model,
    vocab: Vocab,
    sentences,
    style: int,
    batch_size: int = 128,
    device=None,
    extra_len: int = 5,
    beam_width: int = 1,
) -> list[list[str]]:
    """Rewrite token lists of `style` into style 1 - style (argmax decoding, or beam search of `beam_width` > 1:
    the model's beam()); output order = input order.
    A model over BPE pieces (a vocabulary of sentencepiece '▁' pieces) gives word-level outputs, as the
    metrics read words."""
    was_training = model.training
    model.eval()
    device = device or next(model.parameters()).device
    bpe = any(t.startswith(SPACE) for t in vocab.itos)
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    out: list[list[str]] = [[] for _ in sentences]
    for b in range(0, len(order), batch_size):
        idx = order[b : b + batch_size]
        tokens, lengths, _ = pad_batch([vocab.encode(sentences[i]) for i in idx], device=device)
        z = model.encode(tokens, lengths, style)
        max_len = tokens.size(1) + extra_len
        ids = (
            model.greedy(z, 1 - style, max_len)
            if beam_width == 1
            else model.beam(z, 1 - style, max_len, beam_width)
        )
        ids = ids.cpu().tolist()
        for i, row in zip(idx, ids):
            out[i] = unbpe(" ".join(vocab.decode(row))).split() if bpe else vocab.decode(row)
    model.train(was_training)
    return out


def unmasked_path(path) -> Path | None:
    """out.txt -> out.unmasked.txt, where the outputs with the NER names put back go (None: not a .txt)."""
    path = Path(path)
    return path.with_name(path.name[: -len(".txt")] + ".unmasked.txt") if path.name.endswith(".txt") else None


def write_transfers(path, outputs, entities=None, unmasked_path=None) -> None:
    """Write outputs (token lists) one per line; with NER entities also the unmasked version."""
    write_lines(path, (" ".join(s) for s in outputs))
    if entities is not None and unmasked_path is not None:
        from tst.nlp.ner import unmask  # written by the NER helper

        write_lines(unmasked_path, (" ".join(unmask(s, e)) for s, e in zip(outputs, entities)))


def per_style(files, what: str) -> list:
    """[file of style 0, file of style 1]; ValueError naming `what` otherwise."""
    if files is None or isinstance(files, (str, Path)) or len(files) != 2:
        raise ValueError(f"{what}: one file per style (2), got {files!r}")
    return list(files)


def transfer_test_files(
    checkpoints: dict,
    test: list,
    outputs: dict,
    entities: list | None = None,
    batch_size: int = 128,
    device=None,
    threads: int | None = None,
    beam_width: int = 1,
) -> None:
    """Test transfers (greedy, or beam search of beam_width > 1) of checkpoints {label: ep{E}.pt}: test = [test.0.txt, test.1.txt] (sources of
    style 0 and 1), outputs = {label: [out of style 0 -> 1, out of style 1 -> 0]}, line-aligned with test.
    With entities ([test.0.entities.jsonl, test.1.entities.jsonl]) each out.txt also gets out.unmasked.txt
    with the names put back. Each checkpoint is loaded once (weights_only) and decoded with its
    decode_extra."""
    if set(outputs) != set(checkpoints):
        raise ValueError(f"outputs {sorted(outputs)} and checkpoints {sorted(checkpoints)} name other labels")
    test = per_style(test, "test")
    outs_of = {label: per_style(outputs[label], f"outputs[{label!r}]") for label in checkpoints}
    if threads:
        torch.set_num_threads(threads)
    device = pick_device(device)
    sources = [read_sentences(p) for p in test]
    ents = [read_jsonl(p) for p in per_style(entities, "entities")] if entities else None
    for label, path in checkpoints.items():
        ck = load(path, device)
        model, vocab = model_from_checkpoint(ck, device)
        extra = ck["config"]["decode_extra"]  # the full settings of the run
        for t in (0, 1):
            out = transfer_sentences(model, vocab, sources[t], t, batch_size, device, extra, beam_width)
            path = outs_of[label][t]
            write_transfers(path, out, ents[t] if ents else None, unmasked_path(path))
            how = "greedy" if beam_width == 1 else f"beam {beam_width}"
            log.info(
                "%s: %d test sentences of style %d transferred (%s) to %s", label, len(out), t, how, path
            )
