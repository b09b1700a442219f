"""Sentencepiece BPE (config key `bpe:`), trained on the train split only.

Input sentences are already word-tokenized; a BPE sentence is its pieces joined by single spaces, and
`decode` restores the word-level sentence exactly (identity normalization, byte fallback for unseen
characters). NER placeholders and <num> stay single pieces.
"""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import numpy as np
import sentencepiece as spm

SPACE = "\u2581"  # sentencepiece's word-boundary mark


def train_bpe(
    sentences: list[str],
    model_path: str | Path,
    vocab_size: int = 8000,
    user_symbols: list[str] | tuple[str, ...] = (),
) -> BPE:
    """Train a BPE model on `sentences` (space-tokenized strings) and write it to model_path."""
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=model,
        model_type="bpe",
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        character_coverage=1.0,
        byte_fallback=True,
        normalization_rule_name="identity",
        remove_extra_whitespaces=True,
        split_digits=False,
        user_defined_symbols=list(user_symbols),
        input_sentence_size=0,
        shuffle_input_sentence=False,
        num_threads=1,
        minloglevel=2,
        max_sentence_length=1 << 16,
        unk_surface="<unk>",
        bos_id=-1,
        eos_id=-1,
        pad_id=-1,
        unk_id=0,
    )
    model_path = Path(model_path)
    model_path.parent.mkdir(parents=True, exist_ok=True)
    model_path.write_bytes(model.getvalue())
    return BPE(model_path)


class BPE:
    def __init__(self, model_path: str | Path):
        self.sp = spm.SentencePieceProcessor(model_file=str(model_path))

    def __len__(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, sentence: str) -> list[str]:
        """Word-level sentence -> BPE pieces."""
        return self.sp.encode(sentence, out_type=str)

    def encode_many(self, sentences: list[str]) -> list[list[str]]:
        return self.sp.encode(list(sentences), out_type=str)

    def decode(self, pieces: list[str] | str) -> str:
        """BPE pieces (list, or one space-joined string) -> word-level sentence."""
        if isinstance(pieces, str):
            pieces = pieces.split()
        return self.sp.decode_pieces(list(pieces))


def unbpe(line: str) -> str:
    """Word-level text from a space-joined BPE line, without the model (for pieces without byte fallback)."""
    return "".join(line.split()).replace(SPACE, " ").strip()


def is_piece_vocab(tokens) -> bool:
    """Whether a vocabulary (its tokens) is one of sentencepiece pieces: some token starts with '▁'."""
    return any(str(t).startswith(SPACE) for t in tokens)


def _words(sentence) -> str:
    return sentence if isinstance(sentence, str) else " ".join(sentence)


def word_nll(pieces: list[str], nll, n_words: int) -> np.ndarray:
    """A word-level sentence's NLL per word (+ its <eos>) from its pieces' NLL (+ <eos>): a piece starting with
    '▁' begins a word (sentencepiece marks every word's first piece so), the others add to the word before.
    `n_words` (the word-level sentence's word count) checks the grouping."""
    nll = np.asarray(nll, dtype=np.float64).reshape(-1)
    if len(nll) != len(pieces) + 1:
        raise ValueError(f"{len(nll)} NLL values for {len(pieces)} pieces + <eos>")
    words: list[float] = []
    for i, p in enumerate(pieces):
        if p.startswith(SPACE) or not words:
            words.append(0.0)
        words[-1] += float(nll[i])
    if len(words) != n_words:
        raise ValueError(f"pieces {pieces} group into {len(words)} words, the sentence has {n_words}")
    return np.array(words + [float(nll[-1])])


UNK_TOP = 5  # the tokens read as <unk> most often that a score file names per classifier / LM


class ModelUnits:
    """An evaluator with a `.vocab` (classifier or LM) fed word-level sentences in the units it was trained
    on: with `bpe` (a model trained on BPE pieces) each sentence is encoded with the dataset's BPE model
    first; without, its words go in as they are. Counts the tokens fed and how many are outside the
    evaluator's vocabulary (what it reads as <unk>)."""

    def __init__(self, model, bpe: BPE | None = None):
        self.model, self.bpe, self.vocab = model, bpe, model.vocab
        self.reset_counts()

    def encode(self, sentences) -> list[list[str]]:
        if self.bpe is None:
            units = [s.split() if isinstance(s, str) else list(s) for s in sentences]
        else:
            units = self.bpe.encode_many([_words(s) for s in sentences]) if len(sentences) else []
        self.n_tokens += sum(len(u) for u in units)
        self.unknown.update(t for u in units for t in u if t not in self.vocab)
        return units

    @property
    def n_unk(self) -> int:
        return self.unknown.total()

    def reset_counts(self) -> None:
        self.n_tokens = 0
        self.unknown = Counter()  # token read as <unk> -> times

    def counts(self) -> dict:
        """Since the last reset: units ("bpe" | "words"), tokens fed, how many <unk>, their share, and the
        UNK_TOP tokens read as <unk> most often ([token, times], most first, ties in token order)."""
        rate = self.n_unk / self.n_tokens if self.n_tokens else None
        top = sorted(self.unknown.items(), key=lambda kv: (-kv[1], kv[0]))[:UNK_TOP]
        return {
            "units": "words" if self.bpe is None else "bpe",
            "n_tokens": self.n_tokens,
            "n_unk": self.n_unk,
            "unk_rate": rate,
            "unk_top": [[t, n] for t, n in top],
        }

    def predict_proba(self, sentences):
        return self.model.predict_proba(self.encode(sentences))

    def predict(self, sentences):
        return self.model.predict(self.encode(sentences))

    def token_nll(self, sentences):
        """Per sentence, NLL per word then the final <eos>: on BPE, a word's NLL is the sum over its pieces
        (`word_nll`), so PP is per word whatever the units the LM reads."""
        units = self.encode(sentences)
        nll = self.model.token_nll(units)
        if self.bpe is None:
            return nll
        return [word_nll(u, x, len(_words(s).split())) for u, x, s in zip(units, nll, sentences)]

    def p_real(self, sentences):
        return self.model.p_real(self.encode(sentences))

    def perplexity(self, sentences) -> float:
        return self.model.perplexity(self.encode(sentences))
