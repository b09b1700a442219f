"""Bounded memory of `tst score`: long lines cut and counted, batches capped by padded tokens, a
metric that runs out of memory skipped with the reason while the others score."""

import json
import logging

import numpy as np
import pytest
import torch
import yaml
from conftest import REPO

import tst.metrics.sbert as sbert_mod
from tst.cli import main
from tst.evaluators import training
from tst.evaluators.classifiers import Classifier, build_model
from tst.evaluators.language_model import LanguageModel
from tst.evaluators.training import capped_batches
from tst.io import write_lines
from tst.models.gru_lm import GRULanguageModel
from tst.scoring.compute import score_system
from tst.scoring.memory import is_out_of_memory
from tst.scoring.read import cut_words
from tst.scoring.request import ScoreRequest
from tst.scoring.run import score
from tst.scoring.write import score_meta
from tst.stages import LENGTH_MAX_WORDS, SCORE_MAX_WORDS_FACTOR, score_max_words
from tst.vocab import Vocab

# ---- the word limit ----


def test_default_limit_is_four_times_the_datasets_max_words_and_the_schemas_default():
    schema = yaml.safe_load((REPO / "schemas" / "config.schema.yaml").read_text())
    length = schema["$defs"]["dataset"]["properties"]["length"]["properties"]["max_words"]
    assert length["default"] == LENGTH_MAX_WORDS == 15
    assert SCORE_MAX_WORDS_FACTOR == 4
    yelp = {"datasets": {"yelp": {"length": {"max_words": 15}}, "imdb": {"length": {"max_words": 40}}}}
    assert score_max_words(yelp, "yelp") == 60
    assert score_max_words(yelp, "imdb") == 160
    assert score_max_words(yelp, "other") == 60  # a dataset not in the config: the schema's 15
    assert score_max_words() == 60
    assert score_max_words({**yelp, "score": {"max_words": 7}}, "imdb") == 7
    assert score_max_words({**yelp, "score": {"max_words": None}}, "imdb") == 160
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    assert cfg["score"]["max_words"] is None  # the config leaves it to the dataset
    for name, limit in (("yelp", 60), ("imdb", 160), ("literature", 100)):  # 4 x 15, 4 x 40, 4 x 25
        overlay = yaml.safe_load((REPO / "configs" / f"{name}.yaml").read_text())
        assert score_max_words({**cfg, "datasets": overlay["datasets"]}, name) == limit


def test_cut_words():
    assert cut_words("a b c d", 3) == "a b c"
    assert cut_words("a  b\tc d e", 2) == "a b"  # split on whitespace, joined by one space
    assert cut_words("a b c", 3) is None and cut_words("a b c", None) is None
    assert cut_words("x" * 20, 1) is None  # one token of 20 characters: within 20 x 1
    # one 1 MB token (a million BPE pieces): cut to 20 x 60 = 1,200 characters; 60 words of 20 characters fit
    assert cut_words("x" * 1_000_000, 60) == "x" * 1200
    assert cut_words(" ".join(["y" * 19] * 60), 60) is None  # 60 x 19 + 59 spaces = 1,199 characters
    assert cut_words("ab cd " * 300, 2) == "ab cd"  # words first (2), then characters (5 <= 40)
    assert cut_words("abc " + "d" * 100, 2) == "abc " + "d" * 36  # 2 words, then 40 characters


def _toy_files(tmp_path):
    write_lines(tmp_path / "src.0.txt", ["s1 s2 s3 s4 s5 s6", "x y"])
    write_lines(tmp_path / "out.0.txt", ["a b c d e X Y Z", "x y"])
    # matched on the whole source (6 words); its reference has 8 words
    write_lines(tmp_path / "refs.0.tsv", ["s1 s2 s3 s4 s5 s6\ta b c d e W V U"])
    return tmp_path


def _score_toy(d, max_words=None):
    request = ScoreRequest(
        [d / "src.0.txt"],
        [d / "out.0.txt"],
        [0],
        meta=score_meta("toy", "sys", "test", "final"),
        evaluators=d / "no_evaluators",
        references=[d / "refs.0.tsv"],
        options={"sbert": False},
        only=["bleu_ref_sentence"],
        max_words=max_words,
    )
    return score(request)


def test_long_lines_are_cut_and_counted_per_file(tmp_path):
    d = _toy_files(tmp_path)
    obj = _score_toy(d, max_words=5)
    # line 1 of each file is longer than 5 words: source (6), output (8), the reference (8)
    assert obj["max_words"] == 5 and obj["n_truncated"] == 3
    assert obj["truncated_lines"] == {str(d / f): 1 for f in ("src.0.txt", "out.0.txt", "refs.0.tsv")}
    # output and reference both cut to "a b c d e": sentence BLEU 100 (uncut, the 8-word pair differs in 3
    # words); the reference was found, so it was matched on the whole 6-word source
    ref = obj["metrics"]["bleu_ref_sentence"]
    assert ref["details"]["n_with_reference"] == 1 and ref["score"] == pytest.approx(100.0)


def test_without_a_limit_nothing_is_cut(tmp_path):
    obj = _score_toy(_toy_files(tmp_path))
    assert (obj["max_words"], obj["n_truncated"], obj["truncated_lines"]) == (None, 0, {})
    assert obj["metrics"]["bleu_ref_sentence"]["score"] < 100


def _cli(tmp_path, *extra):
    args = ["score", "--dataset-dir", str(tmp_path / "toy"), "--no-sbert", "--metrics", "bleu_self_sentence"]
    args += ["--sources", str(tmp_path / "test.0.txt"), "--outputs", str(tmp_path / "out.0.txt"), *extra]
    main(args)


def test_cli_cuts_a_1mb_line_to_the_default_limit(tmp_path, capsys, caplog):
    long = " ".join(["w"] * 500_000)  # 1 MB: 500,000 words
    write_lines(tmp_path / "test.0.txt", ["w w", "c d"])
    write_lines(tmp_path / "out.0.txt", [long, "c d"])
    with caplog.at_level(logging.WARNING, logger="tst.scoring.read"):
        _cli(tmp_path)
    captured = capsys.readouterr()
    obj = json.loads(captured.out)
    assert "1 line(s) longer than 60 words (or 20 x as many characters) were cut" in captured.err
    assert (obj["max_words"], obj["n_truncated"]) == (60, 1)
    assert obj["truncated_lines"] == {str(tmp_path / "out.0.txt"): 1}
    assert "1 line(s) longer than 60 words (or 1200 characters) cut (the first: line 1)" in caplog.text
    # sentence self-BLEU of the 60 "w" kept against "w w": clipped 1-grams 2/60, 2-grams 1/59, none of the
    # 58 3-grams or 57 4-grams (method1: 0.1 / count), hypothesis longer than the source: BP 1; "c d" against
    # itself: p1 = p2 = 1, no 3- or 4-grams (0.1 each)
    p = [2 / 60, 1 / 59, 0.1 / 58, 0.1 / 57]
    expected = (100 * np.prod(p) ** 0.25 + 100 * 0.01**0.25) / 2
    assert obj["metrics"]["bleu_self_sentence"]["score"] == pytest.approx(expected)


def test_cli_max_words_from_the_option_and_from_the_datasets_config(tmp_path, capsys):
    write_lines(tmp_path / "test.0.txt", ["a b"])
    write_lines(tmp_path / "out.0.txt", ["a b c d e f g h i"])  # 9 words
    _cli(tmp_path, "--max-words", "3")
    assert json.loads(capsys.readouterr().out)["max_words"] == 3
    cfg = tmp_path / "cfg.yaml"
    toy = {"styles": ["neg", "pos"], "source": {"kind": "demo"}, "length": {"max_words": 2}}
    cfg.write_text(yaml.safe_dump({"datasets": {"toy": toy}}))
    _cli(tmp_path, "--config", str(cfg))  # dataset toy: the dataset dir's name
    obj = json.loads(capsys.readouterr().out)
    assert (obj["max_words"], obj["n_truncated"]) == (8, 1)  # 4 x 2 < 9 words
    with pytest.raises(SystemExit) as e:
        _cli(tmp_path, "--config", str(cfg), "--dataset", "yelp")
    assert e.value.code == 2
    assert "config key datasets.yelp not found" in capsys.readouterr().err


def test_cli_refuses_a_config_key_the_workflow_refuses_before_any_metric(tmp_path, capsys, monkeypatch):
    """--config is checked against the workflow's schema (over config.yaml, as the Snakefile reads it): a
    mistyped key stops tst score with exit 2 naming the file, the key and what is wrong, before any metric."""
    import tst.scoring.run

    monkeypatch.setattr(tst.scoring.run, "score", lambda *a, **k: pytest.fail("scored a refused request"))
    write_lines(tmp_path / "test.0.txt", ["a b"])
    write_lines(tmp_path / "out.0.txt", ["a b"])
    cfg = tmp_path / "cfg.yaml"
    toy = {"styles": ["neg", "pos"], "source": {"kind": "demo"}}
    cfg.write_text(yaml.safe_dump({"datasets": {"toy": toy}, "score": {"max_wrds": 5}}))
    with pytest.raises(SystemExit) as e:
        _cli(tmp_path, "--config", str(cfg))
    assert e.value.code == 2
    assert capsys.readouterr().err == (
        f"tst score: error: --config {cfg}: config key score: Additional properties are not allowed "
        "('max_wrds' was unexpected); the workflow refuses it too (schemas/config.schema.yaml)\n"
    )


# ---- token-capped batches ----


def test_capped_batches_by_hand():
    lengths = [3, 10, 2, 10, 40, 5]  # sorted: i2 (2), i0 (3), i5 (5), i1 (10), i3 (10), i4 (40)
    got = [b.tolist() for b in capped_batches(lengths, batch_size=3, max_tokens=30)]
    # [i2 i0 i5]: 3 sentences (3 x 5 = 15 tokens); [i1 i3]: taking i4 would pad 3 x 40 = 120 > 30; [i4] alone
    assert got == [[2, 0, 5], [1, 3], [4]]
    # without the cap: fixed chunks of 3 (what evaluation did before)
    assert [b.tolist() for b in capped_batches(lengths, 3, max_tokens=10**9)] == [[2, 0, 5], [1, 3, 4]]
    assert capped_batches([], 4) == []


def test_normal_text_keeps_the_fixed_256_sentence_batches():
    """Lengths up to 32 (Yelp outputs reach 27 tokens): the same batches as fixed chunks of the sorted order,
    so scores are bit-identical; one 61-token line among 1,000 (a 1 MB line cut to 60 words + <eos>) gets
    a batch of its own: 232 x 61 = 14,152 > 8,192."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 33, size=1000).tolist()
    order = np.argsort(lengths, kind="stable")
    fixed = [order[i : i + 256].tolist() for i in range(0, 1000, 256)]
    assert [b.tolist() for b in capped_batches(lengths, 256)] == fixed
    lengths[0] = 61
    sizes = [len(b) for b in capped_batches(lengths, 256)]
    assert sizes == [256, 256, 256, 231, 1]


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(training, "EVAL_MAX_TOKENS", 12)


SENTS = [["a"], ["a", "b"], ["b", "a"], ["a", "b", "c"], ["c", "b", "a"], ["b", "b", "c"], ["a"] * 7]


def _record_shapes(module):
    shapes = []
    module.register_forward_pre_hook(lambda m, args: shapes.append(tuple(args[0].shape)))
    return shapes


@pytest.mark.parametrize("kind", ["text_cnn", "lstm_classifier"])
def test_classifier_batches_are_capped_as_computed_by_hand(kind, small_budget):
    torch.manual_seed(0)
    vocab = Vocab(["a", "b", "c"])
    cfg = {"emb_dim": 8, "widths": [1, 2], "n_filters": 4} if kind == "text_cnn" else {"emb_dim": 8}
    clf = Classifier(
        kind, build_model(kind, len(vocab), cfg), vocab, batch_size=4, device=torch.device("cpu")
    )
    shapes = _record_shapes(clf.model)
    p = clf.predict_proba(SENTS)
    # lengths 1 2 2 3 3 3 7, batch 4, budget 12: [1 2 2 3] (4 x 3 = 12), [3 3] (taking 7: 3 x 7 = 21 > 12),
    # [7]
    assert shapes == [(4, 3), (2, 3), (1, 7)]
    alone = np.vstack([clf.predict_proba([s]) for s in SENTS])  # padding does not change a sentence's score
    np.testing.assert_allclose(p, alone, rtol=1e-6, atol=1e-7)


def test_lm_batches_are_capped_as_computed_by_hand(small_budget):
    torch.manual_seed(0)
    vocab = Vocab(["a", "b", "c"])
    lm = LanguageModel(GRULanguageModel(len(vocab), 8, 8), vocab, batch_size=4, device=torch.device("cpu"))
    shapes = _record_shapes(lm.model.embedding)  # the input ids [B, T] of each batch
    nll = lm.token_nll(SENTS)
    # read lengths (<bos> + words) 2 3 3 4 4 4 8: [2 3 3 4] (4 x 4 = 16 > 12 -> no): [2 3 3] (3 x 3 = 9),
    # [4 4 4] (12), [8]
    assert shapes == [(3, 3), (3, 4), (1, 8)]
    assert [len(a) for a in nll] == [len(s) + 1 for s in SENTS]
    for s, a in zip(SENTS, nll):
        np.testing.assert_allclose(a, lm.token_nll([s])[0], rtol=1e-6, atol=1e-7)


class FakeSBERT:
    """sentence-transformers' interface: a tokenizer (one id per word plus [CLS] [SEP]) and encode."""

    max_seq_length = 6

    def __init__(self):
        self.calls = []

    def tokenizer(self, texts, truncation, max_length):
        return {"input_ids": [[0] * min(len(t.split()) + 2, max_length) for t in texts]}

    def encode(self, texts, **kw):
        self.calls.append(list(texts))
        return (
            np.array([[len(t.split()), 1.0] for t in texts])
            / np.hypot([len(t.split()) for t in texts], 1)[:, None]
        )


def test_sbert_groups_are_capped_as_computed_by_hand(small_budget):
    texts = ["w", "w w", "w w w w w w w w"]  # wordpieces 3, 4, 6 (8 + 2 cut to max_seq_length 6)
    model = FakeSBERT()
    # batch 2 x longest 6 = 12 <= 12: one encode call with every text, as before
    assert sbert_mod._token_capped(texts, model, 2) == [texts]
    # batch 4 x 6 = 24 > 12: capped batches [3 4] (2 x 4 = 8; taking 6: 3 x 6 = 18 > 12) and [6]
    assert sbert_mod._token_capped(texts, model, 4) == [["w", "w w"], ["w w w w w w w w"]]
    sbert_mod._CACHE.pop(model, None)
    e = sbert_mod.embed(texts, model, batch_size=4)
    assert model.calls == [["w", "w w"], ["w w w w w w w w"]]
    np.testing.assert_allclose(e[:, 0], np.array([1, 2, 8]) / np.hypot([1, 2, 8], 1))


# ---- out of memory: a skip with the reason ----


def test_out_of_memory_errors_are_recognised():
    with pytest.raises(RuntimeError) as e:
        torch.empty(10**13)  # 40 TB: torch's CPU allocator refuses
    assert is_out_of_memory(e.value)
    with pytest.raises(MemoryError) as e:
        np.empty(10**13)  # 80 TB
    assert is_out_of_memory(e.value)
    assert not is_out_of_memory(RuntimeError("size mismatch"))
    # what torch's GRU kernel raised under a 2.2 GB address-space limit with a 1 MB line uncut
    assert is_out_of_memory(RuntimeError("std::bad_alloc"))
    # and the same kernel's allocator message cut short for want of memory (3 of 17 capped runs)
    assert is_out_of_memory(RuntimeError("[enforce fail a"))
    assert not is_out_of_memory(RuntimeError("[enforce fail at tensor.cpp:12] ndim == 2. expected a matrix"))


SOURCES = ["the food was good", "the service was bad"]
OUTPUTS = ["the food was bad", "the service was good"]


@pytest.mark.parametrize("allocate", [lambda: torch.empty(10**13), lambda: np.empty(10**13)])
def test_a_metric_out_of_memory_is_skipped_with_the_reason(tmp_path, monkeypatch, caplog, allocate):
    def too_big(*a, **kw):
        allocate()

    monkeypatch.setattr(sbert_mod, "sbert_similarity", too_big)
    with caplog.at_level(logging.WARNING, logger="tst.scoring.read"):
        s = score_system(SOURCES, OUTPUTS, [1, 0], tmp_path)
    why = s.skipped["sbert_all_minilm_l6_v2"]
    assert why.startswith("out of memory (") and "the other metrics were scored" in why
    assert ("DefaultCPUAllocator: can't allocate memory" in why) or ("Unable to allocate" in why)
    assert f"skipped sbert_all_minilm_l6_v2: {why}" in caplog.text
    # the other evaluator-free metrics still score: self-BLEU sentence of each pair by hand, 3 of 4 words
    # shared -> p1 3/4, p2 2/3, p3 1/2, p4 0 -> method1 0.1/1: 100 * (3/4 * 2/3 * 1/2 * 0.1) ** (1/4)
    assert s["bleu_self_sentence"].per_sentence == pytest.approx([100 * (0.025) ** 0.25] * 2)
    assert s["distinct"].score == pytest.approx(1.0)


def test_other_errors_still_raise(tmp_path, monkeypatch):
    def broken(*a, **kw):
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")

    monkeypatch.setattr(sbert_mod, "sbert_similarity", broken)
    with pytest.raises(RuntimeError, match="shapes cannot be multiplied"):
        score_system(SOURCES, OUTPUTS, [1, 0], tmp_path)


def test_an_evaluator_too_big_to_load_is_out_of_memory_not_broken(tmp_path, monkeypatch):
    import tst.scoring.evaluator_files as score_mod

    (tmp_path / "style_cnn.pt").write_text("a classifier")
    monkeypatch.setattr(score_mod, "load_classifier", lambda path: torch.empty(10**13))
    s = score_system(SOURCES, OUTPUTS, [1, 0], tmp_path, only={"acc", "distinct"})
    assert s.skipped["acc"].startswith("out of memory (RuntimeError: ")  # not "cannot load ... rebuild it"
    assert s["distinct"].score == pytest.approx(1.0)
