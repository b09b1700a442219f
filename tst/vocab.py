"""Word vocabulary shared by evaluators and transfer models."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tst.io import read_lines, write_lines

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<bos>", "<eos>"
SPECIALS = [PAD, UNK, BOS, EOS]


class Vocab:
    """Index <-> token map; ids 0..3 are <pad>, <unk>, <bos>, <eos>."""

    def __init__(self, tokens):
        self.itos = list(SPECIALS) + [t for t in tokens if t not in SPECIALS]
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    pad_id, unk_id, bos_id, eos_id = 0, 1, 2, 3

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def encode(self, tokens) -> list[int]:
        return [self.stoi.get(t, self.unk_id) for t in tokens]

    def decode(self, ids) -> list[str]:
        """Tokens up to the first <eos>, without specials <pad>/<bos>."""
        out = []
        for i in ids:
            i = int(i)
            if i == self.eos_id:
                break
            if i in (self.pad_id, self.bos_id):
                continue
            out.append(self.itos[i])
        return out

    @classmethod
    def build(cls, sentences, min_count: int = 1, max_size: int | None = None) -> Vocab:
        counts = Counter(t for s in sentences for t in s)
        return cls.from_counts(counts, min_count, max_size)

    @classmethod
    def from_counts(cls, counts, min_count: int = 1, max_size: int | None = None) -> Vocab:
        # most frequent first, ties broken alphabetically so the file is deterministic
        items = sorted(((t, c) for t, c in counts.items() if c >= min_count), key=lambda x: (-x[1], x[0]))
        if max_size is not None:
            items = items[:max_size]
        return cls([t for t, _ in items])

    @classmethod
    def load(cls, path: str | Path, min_count: int = 1, max_size: int | None = None) -> Vocab:
        """Read a `token<TAB>count` file written by `save_counts`."""
        counts = {}
        for line in read_lines(path):
            token, count = line.split("\t")
            counts[token] = int(count)
        return cls.from_counts(counts, min_count, max_size)

    @staticmethod
    def save_counts(path: str | Path, sentences) -> None:
        counts = Counter(t for s in sentences for t in s)
        items = sorted(counts.items(), key=lambda x: (-x[1], x[0]))
        write_lines(path, (f"{t}\t{c}" for t, c in items))
