"""Sentence-level sentiment labels for the style classifier of a negative / positive dataset: GLUE's SST-2 release
(Socher et al. 2013, the Stanford Sentiment Treebank's sentences and phrases, binary; `sentence<TAB>label` with a
header, 1 = positive), PTB-tokenized and lowercased like the corpora this pipeline prepares.

A review corpus labels each sentence by its review's rating, so "the wine was n't bad ." counts as negative where
it came from a negative review; SST-2 labels the sentence and its phrases by what they say, negations included
("not bad" is labelled at the phrase level).
"""

from __future__ import annotations

import csv
from pathlib import Path

from tst.data.splits import sample_train

# the style names (in order) that SST-2's labels 0 / 1 stand for: Yelp's and Amazon's, and IMDB's file suffixes
SENTIMENT_STYLES = (("negative", "positive"), ("neg", "pos"))
MIN_WORDS = 3  # SST-2 rows with fewer tokens (single words, two-word fragments) are left out


def is_sentiment_pair(styles) -> bool:
    """Whether a dataset's two styles are SST-2's labels, in its order (negative = 0, positive = 1)."""
    return tuple(str(s).lower() for s in styles) in SENTIMENT_STYLES


def read_sst2(path: str | Path) -> tuple[list[list[str]], list[int]]:
    """The rows of an SST-2 TSV with at least MIN_WORDS tokens: (token lists, labels 0 / 1). ValueError naming the
    file, the line and the fix on a malformed row."""
    path = Path(path)
    sentences, labels = [], []
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header != ["sentence", "label"]:
            raise ValueError(
                f"{path}: line 1 is {header!r}, not the header sentence<TAB>label of GLUE's SST-2 release: "
                "download the file again"
            )
        for n, row in enumerate(reader, start=2):
            if len(row) != 2 or row[1].strip() not in ("0", "1"):
                raise ValueError(
                    f"{path}: line {n} is not sentence<TAB>0|1 ({row!r}): download the file again"
                )
            tokens = row[0].split()
            if len(tokens) >= MIN_WORDS:
                sentences.append(tokens)
                labels.append(int(row[1]))
    return sentences, labels


def sample_by_label(
    sentences, labels, n_per_label: int | None, seed: int
) -> tuple[list[list[str]], list[int]]:
    """At most n_per_label sentences of each label (tst.data.splits.sample_train with seed + label), label 0's
    first."""
    out_s, out_y = [], []
    for label in (0, 1):
        pool = [" ".join(s) for s, y in zip(sentences, labels) if y == label]
        picked = sample_train(pool, n_per_label, seed + label)
        out_s += [p.split() for p in picked]
        out_y += [label] * len(picked)
    return out_s, out_y


def download_sst2(
    url: str, out: str | Path, member: str, sha256: str, size: int, whole_file: bool = False
) -> int:
    """The SST-2 training file at `out`: from GLUE's zip at `url` (its `member`), or, with whole_file, the file
    itself (a mirror of the data folder). Written only when its size and sha256 are the configured ones; else
    ValueError naming both, nothing written. Returns the number of bytes."""
    import hashlib
    import tempfile
    import zipfile

    from tst.data.downloads import download

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        got = Path(tmp) / "download"
        download(url, got)
        if whole_file:
            data = got.read_bytes()
        else:
            try:
                with zipfile.ZipFile(got) as z:
                    data = z.read(member)
            except (zipfile.BadZipFile, KeyError) as e:
                raise ValueError(
                    f"{url}: not a zip holding {member} ({e}); nothing written to {out}: check evaluators.sst2.url "
                    "and member"
                ) from e
        digest = hashlib.sha256(data).hexdigest()
        if len(data) != int(size) or digest != sha256.lower():
            raise ValueError(
                f"{url}: {member} has {len(data)} bytes and sha256 {digest}, expected {size} and {sha256} "
                f"(evaluators.sst2); nothing written to {out}: the release changed or the transfer was corrupted"
            )
        part = Path(tmp) / "train.tsv"
        part.write_bytes(data)
        part.replace(out)
    return len(data)
