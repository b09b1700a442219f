"""Library calls train as config.yaml says: the evaluators' training reads one resolved block
(tst.defaults.evaluator_defaults, the workflow's evaluator_settings on config.yaml), never a literal of its own."""

import ast
import math
from pathlib import Path

import pytest
import torch
import yaml

from tst.defaults import evaluator_defaults
from tst.evaluators.training import FIT_KEYS
from tst.stages import evaluator_settings, naturalness_settings
from tst.vocab import Vocab

ROOT = Path(__file__).parents[2]
SHIPPED = yaml.safe_load((ROOT / "config.yaml").read_text())  # read here, not through tst.defaults
SCHEMA = yaml.safe_load((ROOT / "schemas" / "config.schema.yaml").read_text())
TRAINED = ("cnn", "lstm", "lm", "acceptability", "minilm")  # the sections fit() trains


@pytest.mark.parametrize("section", TRAINED)
def test_every_trained_section_of_config_yaml_holds_every_training_setting(section):
    assert set(FIT_KEYS) - {"precision"} <= set(SHIPPED["evaluators"][section])
    assert set(FIT_KEYS) <= set(naturalness_settings(SHIPPED, "nn"))  # its seed is the naturalness block's


@pytest.mark.parametrize("section", TRAINED)
def test_a_library_call_trains_with_the_workflows_settings(section):
    """Two routes to one block: a library call's (evaluator_defaults) and the workflow's on a run that sets
    nothing of its own (evaluator_settings over Snakemake's config, which is config.yaml); both are config.yaml's
    section with its precision and the schema's vocabulary min_count."""
    block = evaluator_defaults(section)
    run = evaluator_settings({**SHIPPED, "datasets": {"mine": {}}}, section, "mine")
    min_count = SCHEMA["$defs"]["dataset"]["properties"]["vocab"]["properties"]["min_count"]["default"]
    assert (
        block
        == run
        == {
            "min_count": min_count,
            "precision": SHIPPED["evaluators"]["precision"],
            **SHIPPED["evaluators"][section],
        }
    )
    assert evaluator_defaults(section, {"lr": 0.5})["lr"] == 0.5  # the caller's keys over it


def test_what_the_code_once_filled_in_is_now_config_yamls():
    """The values the training code used to fall back on where config.yaml says otherwise: the joint LM's two
    evaluations an epoch, its adaptive softmax and style LMs from the joint LM, the MiniLM's 3 frozen layers,
    the acceptability classifier's MiniLM, the style classifiers' batch of 256."""
    lm, acc = evaluator_defaults("lm"), evaluator_defaults("acceptability")
    assert (lm["evals_per_epoch"], lm["softmax"], lm["style_init"], lm["clip"]) == (
        2,
        "adaptive",
        "joint",
        5.0,
    )
    assert evaluator_defaults("minilm")["frozen_layers"] == 3 and acc["model"] == "minilm"
    assert evaluator_defaults("cnn")["batch_size"] == evaluator_defaults("lstm")["batch_size"] == 256
    nn = evaluator_defaults("naturalness.nn")
    assert nn == naturalness_settings(SHIPPED, "nn")
    assert (nn["seed"], nn["dev_fraction"], nn["batch_size"]) == (1, 0.1, 32)


def test_a_library_lm_trains_two_evaluations_an_epoch_and_says_how_far_it_is(monkeypatch):
    """train_lm with only the sizes given: config.yaml's evals_per_epoch 2 (evaluations at epochs 0.5 and 1.0;
    the code's old fallback was 1), its clip and batch; its adaptive softmax, whose cutoffs lie past this tiny
    vocabulary, becomes a full one and says so. The log's last progress line counts every optimizer step of the
    total, counted here as the training-mode loss calls."""
    from tst.evaluators.language_model import train_lm
    from tst.models.gru_lm import GRULanguageModel

    torch.set_num_threads(1)
    train = [["a", "b", "c"], ["b", "a", "c"], ["c", "c", "a", "b"]] * 200
    vocab = Vocab.build(train)
    logged, steps = [], []
    real = GRULanguageModel.target_nll

    def counting(self, *a, **k):
        steps.extend([1] if self.training else [])
        return real(self, *a, **k)

    monkeypatch.setattr(GRULanguageModel, "target_nll", counting)
    ckpt = train_lm(
        train, train[:3], vocab, {"emb_dim": 8, "hidden_dim": 8}, {"max_epochs": 1}, log=logged.append
    )
    assert [e["epoch"] for e in ckpt["metrics"]["epochs"]] == [0.5, 1.0]
    t = ckpt["config"]["train"]
    assert (t["clip"], t["batch_size"], t["evals_per_epoch"]) == (5.0, 256, 2)
    m = ckpt["config"]["model"]
    assert m["softmax"] == "full" and m["adaptive_cutoffs_dropped"] == SHIPPED["evaluators"]["lm"]["cutoffs"]
    assert m["dropout"] == SHIPPED["evaluators"]["lm"]["dropout"]
    progress = [line for line in logged if " steps" in line]
    n = len(steps)  # 600 sentences in batches of at most 256: at least 3
    assert n >= 3 and progress[-1].startswith(f"language model: {n}/{n} steps (100.0%)")


def test_a_library_classifier_records_the_sections_settings():
    """train_classifier kind cnn with nothing but its data: config.yaml's evaluators.cnn (widths, filters,
    dropout; lr, batch, epochs, patience), recorded in the checkpoint."""
    from tst.evaluators.classifiers import train_classifier

    torch.set_num_threads(1)
    train = [["x", "good", "y"], ["y", "bad", "x"]] * 10
    ckpt = train_classifier(
        train, [1, 0] * 10, train[:4], [1, 0] * 2, Vocab.build(train), "cnn", log=lambda m: 0
    )
    cnn = SHIPPED["evaluators"]["cnn"]
    assert ckpt["config"]["model"] == {k: cnn[k] for k in ("emb_dim", "widths", "n_filters", "dropout")}
    assert ckpt["config"]["train"] == {
        "precision": SHIPPED["evaluators"]["precision"],
        **{k: cnn[k] for k in FIT_KEYS if k != "precision"},
    }
    assert len(ckpt["metrics"]["epochs"]) <= math.ceil(cnn["max_epochs"])


def test_one_reading_of_a_datasets_length_limits(repo_root):
    """length.max_words where a dataset leaves it out is the schema's 15 for preparing the corpus, for the
    config's check and for the scoring cut (4 x 15), as the docs say."""
    from tst.config import ConfigError, check_config
    from tst.data.normalize import length_limits
    from tst.stages import score_max_words

    length = SCHEMA["$defs"]["dataset"]["properties"]["length"]["properties"]
    assert length_limits(None) == (length["min_words"]["default"], length["max_words"]["default"]) == (1, 15)
    assert length_limits({"max_words": 40}) == (1, 40)
    assert score_max_words({"datasets": {"mine": {"length": {}}}}, "mine") == 60
    config = yaml.safe_load((repo_root / "config.yaml").read_text())
    config["datasets"]["demo"]["length"] = {"min_words": 20}  # above the unset max_words' 15
    with pytest.raises(ConfigError, match=r"datasets\.demo\.length: min_words 20 > max_words 15"):
        check_config(config)


# ---- no training code falls back on a value of its own ----

CONFIG_DICTS = {"cfg", "train_cfg", "model_cfg", "settings", "block", "c", "lm", "ev"}


def _config_keys() -> set[str]:
    keys = set()
    for section in SHIPPED["evaluators"].values():
        if isinstance(section, dict):
            keys |= set(section)
            keys |= {k for v in section.values() if isinstance(v, dict) for k in v}
    return keys


def test_no_training_code_falls_back_on_a_literal_for_a_config_key():
    """`cfg.get("<a key of config.yaml's evaluators>", <a literal>)` on a settings dict: each was a second
    default that could (and 17 did) contradict config.yaml."""
    keys, found = _config_keys(), []
    files = [
        *ROOT.glob("tst/evaluators/*.py"),
        ROOT / "tst" / "validity.py",
        ROOT / "tst" / "rule_inputs.py",
        *ROOT.glob("scripts/train_*.py"),
    ]
    assert len(files) > 10
    for path in files:
        tree = ast.parse(path.read_text())
        for n in ast.walk(tree):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get"):
                continue
            if (
                len(n.args) != 2
                or not isinstance(n.func.value, ast.Name)
                or n.func.value.id not in CONFIG_DICTS
            ):
                continue
            key, fallback = n.args
            literal = isinstance(fallback, (ast.Constant, ast.List, ast.Tuple, ast.Dict)) and not (
                isinstance(fallback, ast.Constant) and fallback.value is None
            )
            if isinstance(key, ast.Constant) and key.value in keys and literal:
                found.append(f"{path.relative_to(ROOT)}:{n.lineno} {ast.unparse(n)}")
    assert found == []
