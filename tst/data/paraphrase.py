"""Same-style paraphrase pairs for Pang & Gimpel's eq. 5 (they used 90K pairs of ParaNMT-50M, Wieting &
Gimpel 2018, after dropping pairs where one sentence is a substring of the other: their footnote 1)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import numpy as np

from tst.io import NotUTF8Error, read_lines


def sample_indices(k: int, n: int | None, seed: int) -> list[int]:
    """Indices of n of k items drawn without replacement with `seed`, in order (all k when n is None or >= k)."""
    if n is None or k <= n:
        return list(range(k))
    return [int(i) for i in np.sort(np.random.default_rng(seed).choice(k, n, replace=False))]


def keep_pair(u: str, v: str) -> bool:
    """Footnote 1: both sides non-empty and neither a substring of the other."""
    return bool(u and v) and u not in v and v not in u


def filter_and_sample(pairs, n: int | None, seed: int) -> list[tuple[list[str], list[str]]]:
    """Drop pairs whose one side is a substring of the other (footnote 1); sample n without replacement."""
    kept = [(u, v) for u, v in pairs if keep_pair(u, v)]
    return [(kept[i][0].split(), kept[i][1].split()) for i in sample_indices(len(kept), n, seed)]


def load_paraphrases(path, n: int | None = None, seed: int = 0) -> list[tuple[list[str], list[str]]]:
    """A `a<TAB>b` file -> filtered, sampled token-list pairs."""
    pairs = []
    for line in read_lines(path):
        parts = line.split("\t")
        if len(parts) >= 2:
            pairs.append((parts[0].strip(), parts[1].strip()))
    return filter_and_sample(pairs, n, seed)


def pair_lines(path: str | Path, member: str | None = None) -> Iterator[str]:
    """The lines of a pairs file, or of `member` inside a .zip archive (ParaNMT is released zipped), without
    their line ending, streamed: a 5M-pair release is read line by line, never whole. A byte that is not UTF-8
    raises NotUTF8Error naming the file and the line."""
    where = f"{path} ({member})" if member else str(path)
    with ExitStack() as stack:
        if member is None:
            raw = stack.enter_context(open(path, "rb"))
        else:
            raw = stack.enter_context(stack.enter_context(zipfile.ZipFile(path)).open(member))
        for i, line in enumerate(raw, 1):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise NotUTF8Error(
                    f"{where}, line {i}: byte 0x{line[e.start]:02x} is not UTF-8 ({e.reason}); re-encode the "
                    f"file as UTF-8"
                ) from None
            yield (text.removeprefix("\ufeff") if i == 1 else text).rstrip("\r\n")


def select_pairs(
    lines: Callable[[], Iterator[str]], norm: Callable[[str], list[str]], n: int | None, seed: int
) -> tuple[list[tuple[str, str]], dict]:
    """A released pairs file -> the pairs eq. 5 trains on: each `u<TAB>v[<TAB>...]` line's two sides normalized
    like the corpus (`norm`), footnote 1's filter, then n sampled with `seed`. Two passes over `lines()` (a
    callable giving a fresh iterator) so that a 5M-pair file never sits in memory: the first finds the kept
    lines, the second keeps the sampled ones. Returns the pairs and the counts (read, malformed, filtered,
    kept)."""

    def normed(line: str) -> tuple[str, str] | None:
        parts = line.split("\t")
        if len(parts) < 2:
            return None
        return " ".join(norm(parts[0])), " ".join(norm(parts[1]))

    kept_lines, read, malformed = [], 0, 0
    for i, line in enumerate(lines()):
        read += 1
        pair = normed(line)
        if pair is None:
            malformed += 1
        elif keep_pair(*pair):
            kept_lines.append(i)
    chosen = {kept_lines[j] for j in sample_indices(len(kept_lines), n, seed)}
    pairs = [normed(line) for i, line in enumerate(lines()) if i in chosen]
    counts = {
        "read": read,
        "malformed": malformed,
        "filtered": read - malformed - len(kept_lines),
        "kept": len(pairs),
    }
    return pairs, counts
