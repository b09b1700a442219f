"""`tst transfer`: a trained checkpoint applied to new raw sentences, prepared as the dataset's were.

Raw text goes through the dataset's own steps, each the function prepare_dataset (tst.data.prepare) uses:
its `normalize:` block (tst.data.normalize.normalizer), NER masking with its `ner:` labels and the config's
`nlp:` backend (tst.nlp.ner.mask), and its bpe.model (tst.data.bpe.BPE); the model transfers with
tst.train.transfer.transfer_sentences (word-level output, BPE undone) and the kept names are put back with
tst.nlp.ner.unmask, as write_transfers writes the `.unmasked.txt` files.
"""

from __future__ import annotations

from pathlib import Path

from tst import layout
from tst.data.corpus import DEFAULT_NER_LABELS
from tst.data.normalize import detokenize as detokenize_words
from tst.data.normalize import normalizer
from tst.defaults import schema_default
from tst.io import read_json


def style_index(value: str, styles: list[str]) -> int:
    """A style given as 0/1 or by its name in the dataset's `styles`."""
    if value in ("0", "1"):
        return int(value)
    if value in styles:
        return styles.index(value)
    raise ValueError(f"unknown style {value!r}: use 0, 1 or one of {styles}")


def prepare_lines(
    lines: list[str],
    dataset_cfg: dict,
    bpe_model=None,
    backend=None,
    nlp_cfg: dict | None = None,
    ner_skipped=None,
) -> tuple[list[list[str]], list[list[str]], list[list[list[str]]]]:
    """Raw lines -> (model tokens, masked words, NER entities per line), as prepare_dataset prepares a
    corpus: normalized (dataset's normalize block), NER-masked when its ner block is enabled (backend, else
    the one of nlp_cfg; the entity surfaces the corpus left as words, its ner_skipped.json at `ner_skipped`,
    stay words), BPE pieces with bpe_model when its bpe block is enabled (else tokens = words)."""
    norm = normalizer(dataset_cfg.get("normalize"))
    words = [norm(line) for line in lines]
    entities: list = [[] for _ in words]
    ner = dataset_cfg.get("ner") or {}
    if ner.get("enabled", schema_default("datasets", "any", "ner", "enabled")) and words:
        from tst.nlp.ner import mask

        if backend is None:
            from tst.nlp.backend import backend_from_config

            backend = backend_from_config(nlp_cfg)
        keep = (
            frozenset(read_json(ner_skipped)) if ner_skipped and Path(ner_skipped).is_file() else frozenset()
        )
        words, entities = mask(
            words,
            backend.annotate(words, parse=False, ner=True),
            ner.get("labels") or DEFAULT_NER_LABELS,
            keep,
        )
    tokens = words
    if (dataset_cfg.get("bpe") or {}).get("enabled", schema_default("datasets", "any", "bpe", "enabled")):
        from tst.data.bpe import BPE

        if bpe_model is None or not Path(bpe_model).is_file():
            raise FileNotFoundError(
                f"the dataset uses BPE but its model {bpe_model} is missing "
                f"(pass the dataset's prepared data folder, {layout.data('<dataset>')})"
            )
        tokens = BPE(bpe_model).encode_many([" ".join(w) for w in words]) if words else []
    return tokens, words, entities


def transfer_lines(
    checkpoint,
    lines: list[str],
    to_style: int,
    dataset_cfg: dict,
    dataset_dir,
    *,
    nlp_cfg: dict | None = None,
    backend=None,
    device=None,
    batch_size: int = 128,
    beam_width: int = 1,
    detokenize: bool = False,
) -> list[str]:
    """Transfer raw lines into style `to_style` (their style being 1 - to_style) with a trained checkpoint
    (loaded weights_only), greedy or by beam search (beam_width > 1); returns one line of unmasked words per
    input line ("" for an empty line); detokenize: each line cased and detokenized as its input was written
    (tst.data.normalize.detokenize)."""
    import torch

    from tst.device import pick_device
    from tst.nlp.ner import unmask
    from tst.train.checkpoint import load, model_from_checkpoint
    from tst.train.transfer import transfer_sentences

    if to_style not in (0, 1):
        raise ValueError(f"to_style must be 0 or 1, not {to_style!r}")
    device = pick_device(device)
    ck = load(checkpoint, device)
    model, vocab = model_from_checkpoint(ck, device)
    tokens, _, entities = prepare_lines(
        lines,
        dataset_cfg,
        Path(dataset_dir) / layout.BPE_MODEL,
        backend,
        nlp_cfg,
        Path(dataset_dir) / layout.NER_SKIPPED,
    )
    keep = [i for i, t in enumerate(tokens) if t]
    with torch.no_grad():
        out = transfer_sentences(
            model,
            vocab,
            [tokens[i] for i in keep],
            1 - to_style,
            batch_size,
            device,
            ck["config"].get("decode_extra", 5),
            beam_width,
        )
    result = [""] * len(lines)
    for i, words in zip(keep, out):
        words = unmask(words, entities[i])
        if detokenize:
            names = [w for _, surface in entities[i] for w in surface.split()]
            result[i] = detokenize_words(words, lines[i], names)
        else:
            result[i] = " ".join(words)
    return result
