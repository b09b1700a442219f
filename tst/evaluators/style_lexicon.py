"""Style lexicon of Mir et al. (2019, Sec. 4.1): binary unigram features, L1-regularised logistic
regression (C = 3); a word belongs to the lexicon when its weight lies more than `sd` (2) standard
deviations from the mean weight. As in Mir et al.'s code (style_lexicon.py: extract_nonzero_weights ->
select_feature_numbers), mean and standard deviation are taken over the NON-ZERO weights only (L1 zeroes
most features; counting the zeros would shrink the sd and admit far more words). With two styles the model
has one weight vector w (positive = style 1): style 1 takes w > mean + sd * std, style 0 takes
w < mean - sd * std. Style words are then masked or removed for WMD (Sec. 4.3)."""

from __future__ import annotations

import numpy as np

STYLE_MASK = "customstyle"  # the token Mir et al.'s released code puts in place of style words


def unigram_matrix(sentences: list[list[str]], vocab: list[str]):
    """Binary sentence x word matrix (scipy CSR) over `vocab`."""
    from scipy.sparse import csr_matrix

    index = {w: i for i, w in enumerate(vocab)}
    rows, cols = [], []
    for r, s in enumerate(sentences):
        for c in sorted({index[t] for t in s if t in index}):
            rows.append(r)
            cols.append(c)
    data = np.ones(len(rows), dtype=np.float64)
    return csr_matrix((data, (rows, cols)), shape=(len(sentences), len(vocab)))


def build_style_lexicon(
    sents0: list[list[str]],
    sents1: list[list[str]],
    C: float = 3.0,
    sd: float = 2.0,
    min_count: int = 1,
    seed: int = 1,
    max_iter: int = 1000,
) -> dict:
    """-> {"0": [words], "1": [words], "C": C, "sd": sd} (style_lexicon.json), words by weight, strongest first."""
    from collections import Counter

    from sklearn.linear_model import LogisticRegression

    counts = Counter(t for s in sents0 + sents1 for t in set(s))
    vocab = sorted(w for w, c in counts.items() if c >= min_count)
    x = unigram_matrix(sents0 + sents1, vocab)
    y = np.array([0] * len(sents0) + [1] * len(sents1))
    lr = LogisticRegression(l1_ratio=1.0, C=C, solver="liblinear", random_state=seed, max_iter=max_iter)  # L1
    lr.fit(x, y)
    w = lr.coef_[0]
    lex = {}
    for style, idx, v in zip(("0", "1"), select_style_features(w, sd), (-w, w)):
        lex[style] = [vocab[i] for i in idx[np.argsort(-v[idx], kind="stable")]]
    return {**lex, "C": C, "sd": sd, "selection": SELECTION}


SELECTION = "weight beyond mean +- sd * std of the non-zero L1 weights (Mir et al.'s code)"


def select_style_features(w, sd: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Feature indices of style 0 (w < mean - sd * std) and style 1 (w > mean + sd * std), mean and std
    (population, numpy's default) over the non-zero entries of w only, as Mir et al.'s
    extract_nonzero_weights + select_feature_numbers. Zero weights are never selected."""
    w = np.asarray(w, dtype=np.float64)
    nz = np.flatnonzero(w)
    if nz.size == 0:
        return nz, nz
    v = w[nz]
    mean, std = v.mean(), v.std()
    return nz[v < mean - sd * std], nz[v > mean + sd * std]


def style_words(lexicon) -> set[str] | frozenset[str]:
    """Words of either style's lexicon (style_lexicon.json's {"0": [...], "1": [...]}), or a plain word set."""
    if isinstance(lexicon, (set, frozenset)):
        return lexicon
    if isinstance(lexicon, dict):
        return set(lexicon.get("0", [])) | set(lexicon.get("1", []))
    return set(lexicon)


def mask_style_words(sentence: list[str], lexicon, mask: str = STYLE_MASK) -> list[str]:
    """Replace every style word (either style's lexicon, or a plain word set) by `mask`."""
    words = style_words(lexicon)
    return [mask if t in words else t for t in sentence]


def remove_style_words(sentence: list[str], lexicon) -> list[str]:
    words = style_words(lexicon)
    return [t for t in sentence if t not in words]


LAYOUT = '{"0": [word, ...], "1": [word, ...], ...}'


def check_style_lexicon(obj, path="style_lexicon.json") -> dict:
    """`obj` when it has the style_lexicon.json layout (build_style_lexicon: a word list per style); else
    InputError naming the file, what is wrong and the fix."""
    from tst.io import InputError

    def bad(what: str):
        raise InputError(f"{path}: {what}; expected {LAYOUT} (rebuild it: rule build_style_lexicon)")

    if not isinstance(obj, dict):
        bad(f"a JSON {type(obj).__name__}, not an object")
    for style in ("0", "1"):
        words = obj.get(style)
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            bad(f"{style!r} is not a list of words" if style in obj else f"no key {style!r}")
    return obj


def load_style_lexicon(path) -> dict:
    """style_lexicon.json, checked (check_style_lexicon)."""
    from tst.io import read_json

    return check_style_lexicon(read_json(path), path)
