"""score_system with small fake evaluators (the interface of docs/interfaces.md), JSON and TSV writers."""

import json
import math

import numpy as np
import pytest

import tst.scoring.evaluator_files as score_mod
from tst.io import read_lines, sha256_of, write_json
from tst.metrics.gm import DEFAULT_T
from tst.metrics.registry import METRICS, add_derived
from tst.scoring.compute import score_system
from tst.scoring.write import score_json, score_meta, write_score_tsv

SOURCES = ["the food was good", "the service was bad", "great place"]
OUTPUTS = ["the food was bad", "the service was good", "awful place"]
STYLES = [1, 0, 1]  # targets 0, 1, 0


class Clf:
    """P(style 1) = 0.9 with "good"/"great" in the sentence, 0.1 otherwise."""

    def predict_proba(self, sentences):
        p1 = np.array([0.9 if {"good", "great"} & set(s) else 0.1 for s in sentences])
        return np.stack([1 - p1, p1], axis=1)


class UniformLM:
    def __init__(self, v):
        self.v = v

    def token_nll(self, sentences):
        return [np.full(len(s) + 1, math.log(self.v)) for s in sentences]


class Emb:
    def __init__(self):
        rng = np.random.default_rng(0)
        words = ["the", "food", "was", "good", "service", "bad", "great", "place", "awful", "customstyle"]
        self.table = {w: rng.normal(size=4) for w in words}
        self.dim = 4

    def get(self, w):
        return self.table.get(w)


class Adv:
    def prob_human(self, sentences):
        return np.array([0.7 if "food" in s else 0.2 for s in sentences])


@pytest.fixture
def evaluators(tmp_path, monkeypatch):
    d = tmp_path / "evaluators"
    for name in [
        "style_cnn.pt",
        "style_lstm.pt",
        "lm_joint.pt",
        "lm_style0.pt",
        "lm_style1.pt",
        "glove.kv",
        "word2vec.kv",
        "word2vec_masked.kv",
        "naturalness/M0.seed1.lr.json",
    ]:
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(f"fake {name}")
    write_json(d / "idf.json", {"idf": {"the": 0.1}, "n_docs": 10, "default": 2.0})
    write_json(d / "style_lexicon.json", {"0": ["bad", "awful"], "1": ["good", "great"], "C": 3, "sd": 2})
    calls = []
    fakes = {
        "load_classifier": lambda p: Clf(),
        "load_lm": lambda p: UniformLM({"lm_joint.pt": 50, "lm_style0.pt": 20, "lm_style1.pt": 80}[p.name]),
        "load_embeddings": lambda p: Emb(),
        "load_naturalness": lambda p: Adv(),
    }

    def loader(func):
        def load(path):
            calls.append(path.name)
            return fakes[func](path)

        return load

    for func in fakes:  # the scorer's evaluator loaders, replaced by fakes that count their calls
        monkeypatch.setattr(score_mod, func, loader(func))
    return d, calls


def test_every_metric_with_every_evaluator(evaluators):
    d, calls = evaluators
    refs = [["the food was bad"], None, ["awful place", "bad place"]]
    s = score_system(SOURCES, OUTPUTS, STYLES, d, references=refs, system="M0.seed1")
    assert s["acc"].score == pytest.approx(1.0)  # every output flips the sentiment word
    assert s["transfer_strength"].score == pytest.approx(1.0)
    assert s["sti"].per_sentence == pytest.approx([0.8, 0.8, 0.8])  # P(target) 0.1 -> 0.9 each
    assert s["pp_joint"].score == pytest.approx(50.0)
    # targets 0, 1, 0: 4 + 2 words at ln 20 (lm_style0), 4 words at ln 80 (lm_style1); <eos> not counted
    assert s["pp_target"].score == pytest.approx(math.exp((6 * math.log(20) + 4 * math.log(80)) / 10))
    # style words masked (or removed) -> source and output coincide: WMD 0
    assert s["wmd_masked"].per_sentence == [0.0, 0.0, 0.0]
    assert s["wmd_removed"].per_sentence == [0.0, 0.0, 0.0]
    # VADER holds good/bad/great/awful: once removed the pairs are identical
    assert s["cp"].per_sentence == pytest.approx([1.0, 1.0, 1.0])
    assert s["naturalness_lr"].score == pytest.approx((0.7 + 0.2 + 0.2) / 3)  # mean P(human) (Mir et al.)
    assert s["naturalness_lr_inputs"].score == pytest.approx((0.7 + 0.2 + 0.2) / 3)  # "food" in source 1 only
    assert s["bleu_ref_corpus"].details["n_with_reference"] == 2
    assert s["bleu_ref_sentence"].per_sentence[1] is None
    assert s["bleu_ref_sentence"].per_sentence[0] == pytest.approx(100.0)
    # two-word sentence: p1 = p2 = 1, no 3- or 4-grams -> method1 gives 0.1 each: 100 * 0.01 ** (1/4)
    assert s["bleu_ref_sentence"].per_sentence[2] == pytest.approx(100 * 0.01**0.25)
    assert 0 < s["sim"].score < 1
    # GM (Pang & Gimpel eq. 1), derived from the corpus scores: acc 1 -> 37, pp 50 -> min(47, 87) = 47
    assert "gm_pg" not in s and "gm_pg" not in s.skipped  # score_system computes no derived metric
    expect_gm = ((100 - 63) * max(100 * s["sim"].score - 71, 0) * 47) ** (1 / 3)
    assert add_derived({k: r.to_json() for k, r in s.items()}, DEFAULT_T)["gm_pg"]["score"] == pytest.approx(
        expect_gm
    )
    assert (
        "naturalness_nn" in s.skipped
        and "naturalness_nn_inputs" in s.skipped
        and "attribute_hit" in s.skipped
    )
    # every computed metric in one place, as the registry describes it
    # every metric on by default is scored or skipped with a reason (one off by default is neither)
    assert sorted([*s, *s.skipped]) == sorted(k for k, m in METRICS.items() if not m.derived and m.default)
    assert list(s) == [k for k in METRICS if k in s]  # in registry order
    assert all(r.name == k and r.higher_is_better == METRICS[k].higher_is_better for k, r in s.items())
    # each evaluator file loaded once although several metrics use it
    assert sorted(calls) == sorted(set(calls))
    assert {"style_cnn.pt", "glove.kv", "idf.json", "style_lexicon.json"} <= set(s.evaluators)


def test_missing_evaluators_are_skipped_with_reason(tmp_path):
    s = score_system(SOURCES, OUTPUTS, STYLES, tmp_path)
    # without evaluators, references or lists only the self-BLEU variants, the distinct-output share and the
    # sbert cosine (its model ships with the install) can be computed; the default GM's content factor weighs the
    # cosine by the style gain, so it needs the style classifier
    assert set(s) == {k for k, m in METRICS.items() if k.startswith("bleu_self_")} | {
        "sbert_all_minilm_l6_v2",
        "distinct",
    }
    assert s.skipped["content"] == "missing evaluator file(s): style_minilm.pt"
    assert {"bleu_self_corpus", "bleu_self_sentence"} <= set(s)
    assert s.skipped["acc"] == "missing evaluator file(s): style_cnn.pt"
    assert s.skipped["joint"] == "missing evaluator file(s): style_minilm.pt, acceptability.pt"
    assert s.skipped["bleu_ref_corpus"] == "no human references given"
    assert (
        add_derived({k: r.to_json() for k, r in s.items()}, DEFAULT_T)
        .skipped["gm_pg"]
        .startswith("needs acc, sim, pp_joint")
    )


def test_attribute_hit_and_only(evaluators):
    d, _ = evaluators
    lists = [["food"], ["servic"], ["place"]]
    s = score_system(SOURCES, OUTPUTS, STYLES, d, lists=lists, only={"attribute_hit", "acc"})
    assert set(s) == {"acc", "attribute_hit"}
    assert s["attribute_hit"].score == pytest.approx(1.0)


def test_score_json_and_tsv(evaluators, tmp_path):
    d, _ = evaluators
    s = score_system(
        SOURCES, OUTPUTS, STYLES, d, system="M0.seed1", only={"acc", "pp_joint", "bleu_self_corpus"}
    )
    meta = score_meta("yelp", "M0.seed1", "dev", "ep1.5")
    assert meta == {
        "dataset": "yelp",
        "system": "M0.seed1",
        "variant": "M0",
        "seed": 1,
        "checkpoint": "ep1.5",
        "epoch": 1.5,
        "split": "dev",
    }
    assert score_meta("yelp", "mit", "test", "final")["seed"] is None
    write_json(tmp_path / "s.json", score_json(s, meta, 3))
    obj = json.loads((tmp_path / "s.json").read_text())
    assert obj["n_sentences"] == 3 and obj["metrics"]["acc"]["score"] == 1.0
    assert obj["metrics"]["pp_joint"]["higher_is_better"] is False
    assert obj["evaluators"] == {
        "lm_joint.pt": sha256_of(d / "lm_joint.pt"),
        "style_cnn.pt": sha256_of(d / "style_cnn.pt"),
    }
    cols = write_score_tsv(tmp_path / "s.tsv", s, STYLES)
    assert cols == ["acc", "pp_joint"]  # corpus BLEU has no per-sentence values
    lines = read_lines(tmp_path / "s.tsv")
    assert lines[0] == "i\tsource_style\tacc\tpp_joint"
    assert lines[1].split("\t")[:3] == ["0", "1", "1.0"]
    assert float(lines[1].split("\t")[3]) == pytest.approx(50.0)


class EosLM:
    """NLL ln 10 for every word, ln 1000 for the final <eos>: counting <eos> changes PP."""

    def token_nll(self, sentences):
        return [np.array([math.log(10)] * len(s) + [math.log(1000)]) for s in sentences]


@pytest.mark.parametrize("count_eos", [False, True])
def test_pp_count_eos_option_reaches_pp_from_the_config(evaluators, monkeypatch, repo_root, count_eos):
    """config.yaml's score.pp_count_eos, through the lookup table the score rules pass as params.options,
    decides whether PP counts the final <eos>."""
    import yaml

    from tst import stages

    d, _ = evaluators
    monkeypatch.setattr(score_mod, "load_lm", lambda p: EosLM())
    cfg = yaml.safe_load((repo_root / "config.yaml").read_text())
    assert cfg["score"]["pp_count_eos"] is False  # the default: Shen et al.'s code
    cfg["score"]["pp_count_eos"] = count_eos
    options = stages.lookup_tables(cfg)["score"]["demo"]  # rules/score.smk: params.options
    assert options["pp_count_eos"] is count_eos
    s = score_system(SOURCES, OUTPUTS, STYLES, d, options=options, only=["pp_joint", "pp_target"])
    # OUTPUTS: 4 + 4 + 2 = 10 words at ln 10, and 3 <eos> at ln 1000 -> exp((10 ln 10 + 9 ln 10) / 13)
    expected = 10 ** (19 / 13) if count_eos else 10.0
    for key in ("pp_joint", "pp_target"):
        assert s[key].score == pytest.approx(expected)
        assert s[key].details["n_tokens"] == (13 if count_eos else 10)
        assert ("include the final <eos>" in s[key].variant) is count_eos
        assert ("the final <eos> not counted" in s[key].variant) is not count_eos


def test_references_release_from_the_dataset_config_names_ref_bleu(repo_root, tmp_path):
    """datasets.<name>.references.release (configs/yelp.yaml) reaches the ref-BLEU variants through the score
    rules' params.options; a dataset without one (the demo) keeps the plain variant."""
    import yaml

    from tst import stages

    cfg = yaml.safe_load((repo_root / "config.yaml").read_text())
    cfg["datasets"].update(yaml.safe_load((repo_root / "configs" / "yelp.yaml").read_text())["datasets"])
    tables = stages.lookup_tables(cfg)["score"]
    assert tables["yelp"]["references_release"] == "lijuncen/Sentiment-and-Style-Transfer@14a48fa3"
    assert "references_release" not in tables["demo"]
    keys = ["bleu_ref_corpus", "bleu_ref_sentence", "bleu_ref_st"]
    refs = [["the food was bad"], None, ["awful place"]]
    yelp = score_system(SOURCES, OUTPUTS, STYLES, tmp_path, refs, options=tables["yelp"], only=keys)
    demo = score_system(SOURCES, OUTPUTS, STYLES, tmp_path, refs, options=tables["demo"], only=keys)
    for key in keys:
        assert yelp[key].score == demo[key].score
        assert yelp[key].variant == (
            demo[key].variant + "; against references lijuncen/Sentiment-and-Style-Transfer@14a48fa3"
        )
