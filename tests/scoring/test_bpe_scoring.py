"""BPE datasets at scoring time: classifiers and LMs trained on BPE pieces read the word-level sources and
outputs encoded with the dataset's bpe.model (Pang & Gimpel 2019 §5.1: literature is BPE-encoded, and the
evaluators are trained on that text), not the words themselves, which are nearly all <unk> to them."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sentencepiece as spm
import torch
from conftest import run_script

from tst.data.bpe import ModelUnits, is_piece_vocab, train_bpe, word_nll
from tst.evaluators.classifiers import load_classifier, train_classifier
from tst.evaluators.language_model import load_lm, train_lm
from tst.io import read_json, write_lines
from tst.scoring.compute import score_system
from tst.scoring.evaluator_files import Evaluators
from tst.scoring.request import ScoreRequest
from tst.scoring.run import score
from tst.vocab import Vocab

A = ["old", "young", "tall", "kind"]  # style 0 words
B = ["sad", "happy", "slow", "quick"]  # style 1 words
NOUNS = ["man", "woman", "lady", "dog"]
STYLE = [[f"the {a} {n} was {a} there ." for a in words for n in NOUNS] for words in (A, B)]


def make_bpe(tmp_path):
    """A tiny sentencepiece model and the piece vocabulary of its train text (what prepare_data writes)."""
    bpe = train_bpe(STYLE[0] + STYLE[1], tmp_path / "bpe.model", vocab_size=310)
    vocab = Vocab.build(bpe.encode_many(STYLE[0] + STYLE[1]))
    return bpe, vocab


def pieces_direct(model_path, sentences):
    """Independent path: sentencepiece itself, no tst code."""
    sp = spm.SentencePieceProcessor(model_file=str(model_path))
    return [sp.encode(s, out_type=str) for s in sentences]


def test_piece_vocab_and_unk_counts(tmp_path):
    bpe, vocab = make_bpe(tmp_path)
    assert is_piece_vocab(vocab.itos) and not is_piece_vocab(["the", "old", "<unk>"])
    seen = ["the kind dog was quick there .", "the sad lady was old there ."]  # train words, new sentences
    lm_like = type("M", (), {"vocab": vocab, "predict_proba": lambda self, s: s})()
    fed = ModelUnits(lm_like, bpe).predict_proba(seen)
    assert fed == pieces_direct(tmp_path / "bpe.model", seen)
    # a word's pieces do not depend on its sentence, so train words give no <unk>
    units = ModelUnits(lm_like, bpe)
    units.encode(seen)
    assert units.counts() == {
        "units": "bpe",
        "n_tokens": sum(len(p) for p in fed),
        "n_unk": 0,
        "unk_rate": 0.0,
        "unk_top": [],
    }
    # the old behaviour, words into a piece vocabulary: a word is never a piece ("▁the" is, "the" is not)
    words = ModelUnits(lm_like)
    words.encode(seen)
    n_words = sum(len(s.split()) for s in seen)
    in_vocab = sum(1 for s in seen for w in s.split() if w in vocab)
    assert words.counts()["n_tokens"] == n_words and words.counts()["n_unk"] == n_words - in_vocab
    assert words.counts()["unk_rate"] > 0.5
    # unseen characters: byte pieces outside the vocabulary, counted as sentencepiece splits them
    odd = ["the zebra was quixotic ."]
    units.reset_counts()
    units.encode(odd)
    direct = pieces_direct(tmp_path / "bpe.model", odd)[0]
    assert units.counts()["n_unk"] == sum(1 for p in direct if p not in vocab.stoi) > 0


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The BPE model and a CNN and a joint LM trained on its pieces, saved as the workflow does."""
    tmp_path = tmp_path_factory.mktemp("bpe_scoring")
    bpe, vocab = make_bpe(tmp_path)
    return tmp_path, train_evaluators(tmp_path, bpe, vocab)


def train_evaluators(tmp_path, bpe, vocab):
    ev = tmp_path / "evaluators"
    ev.mkdir()
    train = [bpe.encode_many(STYLE[0]), bpe.encode_many(STYLE[1])]
    x, y = train[0] + train[1], [0] * len(train[0]) + [1] * len(train[1])
    cfg = {"max_epochs": 8, "patience": 8, "batch_size": 8, "lr": 0.01, "seed": 1, "device": "cpu"}
    ckpt = train_classifier(
        x,
        y,
        x,
        y,
        vocab,
        "cnn",
        {"emb_dim": 16, "widths": [1, 2], "n_filters": 8, "dropout": 0.0},
        cfg,
        log=lambda *a: None,
    )
    assert ckpt["metrics"]["dev_accuracy"] == 1.0  # separable by construction: style words differ
    torch.save(ckpt, ev / "style_cnn.pt")
    lm = train_lm(
        x,
        x,
        vocab,
        {"emb_dim": 16, "hidden_dim": 16, "dropout": 0.0},
        {"max_epochs": 2, "batch_size": 8, "lr": 0.01, "seed": 1, "device": "cpu"},
        log=lambda *a: None,
    )
    torch.save(lm, ev / "lm_joint.pt")
    return ev


def test_scoring_words_encodes_them_for_piece_evaluators(trained, tmp_path):
    models, ev = trained
    sources = ["the kind dog was old there .", "the quick man was sad there ."]  # style 0, style 1
    styles = [0, 1]
    # untransferred: outputs = sources, so Acc (share put in the target style 1 - s) is 0 for a right classifier
    scores = score_system(
        sources, sources, styles, Evaluators(ev, bpe=models / "bpe.model"), only=["acc", "pp_joint"]
    )
    pieces = pieces_direct(models / "bpe.model", sources)
    clf = load_classifier(ev / "style_cnn.pt")
    predicted = clf.predict_proba(pieces).argmax(1)
    assert predicted.tolist() == [0, 1]  # the classifier, fed pieces directly, is right
    assert scores["acc"].score == 0.0
    nll = load_lm(ev / "lm_joint.pt").token_nll(pieces)
    # PP per word, <eos> not counted: every piece's NLL summed (a word = the sum of its pieces), over 7 + 7 words
    assert [len(s.split()) for s in sources] == [7, 7] and sum(map(len, pieces)) > 14
    expected_pp = math.exp(sum(float(a[:-1].sum()) for a in nll) / 14)
    assert np.isclose(scores["pp_joint"].score, expected_pp, rtol=1e-9)
    assert scores["pp_joint"].details["n_tokens"] == 14
    # Acc alone: the CNN read the outputs once
    assert scores.units["style_cnn.pt"] == {
        "units": "bpe",
        "n_tokens": sum(map(len, pieces)),
        "n_unk": 0,
        "unk_rate": 0.0,
        "unk_top": [],
    }
    assert scores.units["lm_joint.pt"]["n_unk"] == 0
    assert "bpe.model" in scores.evaluators


def test_piece_evaluator_without_bpe_model_is_skipped_with_the_fix(trained):
    _, ev = trained
    scores = score_system(
        ["the old man was kind there ."], ["the sad man was kind there ."], [0], ev, only=["acc"]
    )
    assert "acc" not in scores
    assert "trained on BPE pieces" in scores.skipped["acc"] and "bpe.model" in scores.skipped["acc"]


def test_score_script_passes_the_bpe_model(trained, tmp_path):
    models, ev = trained
    src = [tmp_path / "src0.txt", tmp_path / "src1.txt"]
    write_lines(src[0], ["the kind dog was old there ."])
    write_lines(src[1], ["the quick man was sad there ."])
    out = tmp_path / "scores.json"
    run_script(
        "score",
        input={
            "outputs": [str(p) for p in src],
            "sources": [str(p) for p in src],
            "evaluators": [str(ev / "style_cnn.pt"), str(ev / "lm_joint.pt")],
            "bpe": str(models / "bpe.model"),
        },
        output={"json": str(out), "tsv": str(tmp_path / "scores.tsv")},
        params={"runs": [("test", "final")], "options": {}, "max_words": 60},  # as rule score_* passes them
        wildcards={"dataset": "lit", "system": "source"},
        log=[str(tmp_path / "log.txt")],
    )
    obj = read_json(out)
    assert obj["metrics"]["acc"]["score"] == 0.0
    assert obj["units"]["style_cnn.pt"]["unk_rate"] == 0.0 and obj["units"]["style_cnn.pt"]["units"] == "bpe"
    assert "bpe.model" in obj["evaluators"]
    # the same files scored directly give the same numbers
    request = ScoreRequest(
        src,
        src,
        [0, 1],
        meta={"system": "source"},
        evaluators=ev,
        bpe=models / "bpe.model",
        only=["acc", "pp_joint"],
    )
    direct = score(request)
    assert obj["metrics"]["pp_joint"]["score"] == direct["metrics"]["pp_joint"]["score"]


def test_word_evaluators_read_words_and_naturalness_is_left_alone(tmp_path):
    words = type("M", (), {"vocab": Vocab(["the", "old", "man"])})()
    ev = Evaluators(tmp_path, bpe=None)
    wrapped = ev._in_units("style_cnn.pt", words)
    assert isinstance(wrapped, ModelUnits) and wrapped.bpe is None
    assert wrapped.encode(["the old dog"]) == [["the", "old", "dog"]]
    assert wrapped.counts() == {
        "units": "words",
        "n_tokens": 3,
        "n_unk": 1,
        "unk_rate": 1 / 3,
        "unk_top": [["dog", 1]],
    }
    # the commonest unknown tokens, most first, ties in token order, at most UNK_TOP of them
    wrapped.encode(["the cat cat dog ant bee cow emu", "cat"])
    assert wrapped.counts()["n_unk"] == 9
    assert wrapped.counts()["unk_top"] == [["cat", 3], ["dog", 2], ["ant", 1], ["bee", 1], ["cow", 1]]
    assert ev._in_units("naturalness/M0.seed1.nn.pt", words) is words  # trained on words, has no token_nll


def test_workflow_declares_the_bpe_model_for_bpe_datasets_only(repo_root, tmp_path):
    data = tmp_path / "data"
    (data / "literature").mkdir(parents=True)
    for name in ("dickens", "austen"):
        (data / "literature" / f"{name}.txt").write_text("a b c d e f\n")

    def dry_run(*args):
        (tmp_path / "config.yaml").write_bytes((repo_root / "config.yaml").read_bytes())
        r = subprocess.run(
            [
                str(Path(sys.executable).with_name("snakemake")),
                "-s",
                str(repo_root / "Snakefile"),
                "-n",
                "--cores",
                "1",
                "--config",
                f"data_dir={data}",
                *args,
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert r.returncode == 0, r.stderr + r.stdout
        return r.stdout

    def score_inputs(out, rule):
        block = out.split(f"rule {rule}:")[1]
        return next(line for line in block.splitlines() if line.strip().startswith("input:"))

    lit = dry_run(
        "--configfile",
        str(repo_root / "configs/literature.yaml"),
        "--",
        "results/literature/scores/source/test.final.json",
    )
    assert "rule prepare_data_bpe:" in lit and "rule prepare_data:" not in lit
    assert "results/literature/data/bpe.model" in score_inputs(lit, "score_external")
    demo = dry_run("--", "results/demo/scores/source/test.final.json")
    assert "rule prepare_data:" in demo and "bpe.model" not in demo


def test_word_nll_sums_each_words_pieces_by_hand():
    # "▁un", "believ", "able" = one word; "▁dog" another; <eos> last
    w = word_nll(["\u2581un", "believ", "able", "\u2581dog"], [1.0, 2.0, 0.5, 3.0, 0.25], 2)
    assert w.tolist() == [3.5, 3.0, 0.25]
    with pytest.raises(ValueError, match="group into 2 words"):
        word_nll(["\u2581a", "\u2581b"], [1.0, 1.0, 1.0], 3)
