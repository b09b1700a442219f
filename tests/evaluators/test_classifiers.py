"""Style classifiers learn a separable toy corpus; checkpoints load with weights_only=True."""

import numpy as np
import torch

from tst.evaluators.classifiers import load_classifier, train_classifier
from tst.vocab import Vocab


def toy_corpus(n, seed):
    """Style 0 sentences contain 'bad', style 1 'good'; the other words are shared noise."""
    rng = np.random.default_rng(seed)
    fill = ["the", "food", "was", "service", "a", "place", "and", "staff", "very", "it"]
    sents, labels = [], []
    for i in range(n):
        y = i % 2
        words = list(rng.choice(fill, rng.integers(2, 8)))
        words.insert(int(rng.integers(0, len(words) + 1)), "good" if y else "bad")
        sents.append(words)
        labels.append(y)
    return sents, labels


def _train(kind, tmp_path):
    torch.set_num_threads(1)
    tr, ty = toy_corpus(400, 0)
    dv, dy = toy_corpus(100, 1)
    vocab = Vocab.build(tr)
    model_cfg = {"emb_dim": 16, "n_filters": 8, "hidden_dim": 16}
    ckpt = train_classifier(
        tr,
        ty,
        dv,
        dy,
        vocab,
        kind,
        model_cfg,
        {"max_epochs": 15, "patience": 3, "batch_size": 32, "lr": 0.01, "seed": 3, "device": "cpu"},
        log=lambda m: None,
    )
    path = tmp_path / f"{kind}.pt"
    torch.save(ckpt, path)
    return ckpt, path, dv, dy


def test_cnn_separates_toy_corpus_and_round_trips(tmp_path):
    ckpt, path, dv, dy = _train("cnn", tmp_path)
    assert ckpt["kind"] == "text_cnn"
    assert ckpt["metrics"]["dev_accuracy"] == 1.0
    clf = load_classifier(path)
    p = clf.predict_proba(dv)
    assert p.shape == (len(dv), 2)
    np.testing.assert_allclose(p.sum(1), 1.0, atol=1e-6)
    assert (p.argmax(1) == np.array(dy)).all()
    assert p[np.arange(len(dy)), dy].min() > 0.5
    assert clf.predict_proba([["good"]])[0, 1] > 0.5 and clf.predict_proba([["bad"]])[0, 0] > 0.5


def test_lstm_separates_toy_corpus_and_is_deterministic(tmp_path):
    ckpt, path, dv, dy = _train("lstm", tmp_path)
    assert ckpt["kind"] == "lstm_classifier"
    assert ckpt["metrics"]["dev_accuracy"] == 1.0
    p = load_classifier(path).predict_proba(dv)
    np.testing.assert_allclose(p.sum(1), 1.0, atol=1e-6)
    assert (p.argmax(1) == np.array(dy)).all()
    ckpt2, *_ = _train("lstm", tmp_path)  # same seed, same weights
    for k, v in ckpt["state_dict"].items():
        assert torch.equal(v, ckpt2["state_dict"][k])


def test_content_words_masked_in_training_are_masked_when_scoring(tmp_path):
    """Pang 2019: a classifier trained with corpus-specific content words masked sees them masked at scoring
    time too, so 'good food' and 'good <content>' get the same probabilities; without the mask they differ."""
    ckpt, path, _, _ = _train("cnn", tmp_path)
    plain = load_classifier(path, device="cpu")
    ckpt["content_words"] = ["food"]
    torch.save(ckpt, tmp_path / "masked.pt")
    masked = load_classifier(tmp_path / "masked.pt", device="cpu")
    with_word = [["the", "food", "was", "good"]]
    with_mask = [["the", "<content>", "was", "good"]]
    np.testing.assert_array_equal(masked.predict_proba(with_word), masked.predict_proba(with_mask))
    np.testing.assert_array_equal(masked.predict_proba(with_mask), plain.predict_proba(with_mask))
    assert not np.array_equal(plain.predict_proba(with_word), plain.predict_proba(with_mask))
