"""GRU LM evaluator: closed-form perplexities of hand-set models, training, safe round trip."""

import math

import numpy as np
import pytest
import torch

from tst.evaluators.language_model import LanguageModel, load_lm, train_lm
from tst.models.gru_lm import GRULanguageModel
from tst.vocab import Vocab


def hand_set_lm(vocab, bias):
    """Output layer weight 0 and a fixed bias: every position predicts softmax(bias), whatever the input."""
    m = GRULanguageModel(len(vocab), emb_dim=4, hidden_dim=5)
    with torch.no_grad():
        m.out.weight.zero_()
        m.out.bias.copy_(torch.tensor(bias, dtype=torch.float))
    return LanguageModel(m, vocab, device=torch.device("cpu"))


def test_uniform_lm_perplexity_is_vocabulary_size():
    vocab = Vocab(["a", "b", "c", "d", "e", "f"])  # 10 ids with the 4 specials
    lm = hand_set_lm(vocab, [0.0] * len(vocab))
    sents = [["a", "b"], ["c"], ["f", "e", "d", "a", "zzz"]]
    nll = lm.token_nll(sents)
    assert [len(x) for x in nll] == [3, 2, 6]  # tokens + final <eos>
    np.testing.assert_allclose(np.concatenate(nll), math.log(10), rtol=1e-6)
    assert abs(lm.perplexity(sents) - 10.0) < 1e-4


def test_token_nll_of_hand_set_lm():
    vocab = Vocab(["a", "b"])  # ids: <pad>0 <unk>1 <bos>2 <eos>3 a4 b5
    bias = [0.0, 0.0, 0.0, math.log(2), math.log(4), math.log(1)]  # p = [1, 1, 1, 2, 4, 1] / 10
    lm = hand_set_lm(vocab, bias)
    (nll,) = lm.token_nll([["a", "b", "q"]])  # q is unknown -> <unk>
    np.testing.assert_allclose(
        nll, [-math.log(0.4), -math.log(0.1), -math.log(0.1), -math.log(0.2)], rtol=1e-6
    )


def test_old_checkpoint_without_softmax_loads_as_full(tmp_path):
    """Checkpoints written before the adaptive softmax have no "softmax" key: they are full softmaxes."""
    vocab = Vocab(["a", "b"])
    m = GRULanguageModel(len(vocab), emb_dim=4, hidden_dim=5)
    ckpt = {
        "kind": "gru_lm",
        "config": {"model": {"emb_dim": 4, "hidden_dim": 5, "n_layers": 1, "dropout": 0.5}},
        "vocab": list(vocab.itos),
        "state_dict": m.state_dict(),
    }
    torch.save(ckpt, tmp_path / "old.pt")
    lm = load_lm(tmp_path / "old.pt")
    assert lm.model.softmax == "full" and isinstance(lm.model.out, torch.nn.Linear)


def hand_set_adaptive_lm(vocab, cutoffs):
    """Every weight of the adaptive output layer 0: the head is uniform over its words and one entry per
    cluster, each cluster uniform over its words, whatever the input."""
    m = GRULanguageModel(len(vocab), emb_dim=4, hidden_dim=16, softmax="adaptive", cutoffs=cutoffs)
    with torch.no_grad():
        for p in m.out.parameters():
            p.zero_()
    return LanguageModel(m, vocab, device=torch.device("cpu"))


def test_adaptive_softmax_closed_form():
    """V = 10, cutoffs 4 / 7: head = ids 0-3 + 2 clusters (6 entries, 1/6 each); clusters {4,5,6} and {7,8,9}:
    a tail word has p = 1/6 * 1/3 = 1/18. Total 4/6 + 6/18 = 1."""
    vocab = Vocab(["a", "b", "c", "d", "e", "f"])  # <pad>0 <unk>1 <bos>2 <eos>3 a4 .. f9
    lm = hand_set_adaptive_lm(vocab, [4, 7])
    (nll,) = lm.token_nll(
        [["a", "f", "zzz"]]
    )  # a: cluster 1, f: cluster 2, zzz -> <unk> (head), <eos> (head)
    np.testing.assert_allclose(nll, [math.log(18), math.log(18), math.log(6), math.log(6)], rtol=1e-6)
    scores = lm.model(torch.tensor([[2, 4, 9]]))
    assert scores.shape == (1, 3, 10)
    p = scores.detach().exp()[0, 0]
    np.testing.assert_allclose(p.sum().item(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(p.numpy(), [1 / 6] * 4 + [1 / 18] * 6, rtol=1e-6)


def test_adaptive_target_nll_is_minus_the_full_log_prob_of_the_target():
    """The training / scoring path (head + the target's cluster only) and the full distribution agree; padding
    targets get 0."""
    torch.manual_seed(0)
    m = GRULanguageModel(30, emb_dim=6, hidden_dim=16, softmax="adaptive", cutoffs=[5, 15]).eval()
    inp = torch.tensor([[2, 7, 20, 29], [2, 4, 0, 0]])
    tgt = torch.tensor([[7, 20, 29, 3], [4, 3, 0, 0]])
    nll = m.target_nll(inp, tgt, pad_id=0)
    logp = torch.log_softmax(m(inp), -1)
    expect = -logp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1).masked_fill(tgt == 0, 0.0)
    assert torch.allclose(nll, expect, atol=1e-5)
    assert nll[1, 2] == 0 and nll[1, 3] == 0 and (nll[0] > 0).all()
    # the same numbers as torch's own AdaptiveLogSoftmaxWithLoss (log_prob and forward) on the same weights
    h = m.hidden(inp)
    assert torch.allclose(m.scores(h), m.out.log_prob(h.reshape(-1, 16)).reshape(2, 4, 30), atol=1e-5)
    keep = tgt != 0
    assert torch.allclose(nll[keep], -m.out(h[keep], tgt[keep]).output, atol=1e-5)
    # under CPU bf16 autocast (training with precision bf16) the log-softmaxes stay fp32: within bf16 rounding
    with torch.autocast("cpu", dtype=torch.bfloat16):
        nll_bf16 = m.target_nll(inp, tgt, pad_id=0)
    assert nll_bf16.dtype == torch.float32 and torch.allclose(nll_bf16, nll, atol=0.05)


def test_output_layer_keeps_cutoffs_inside_the_vocabulary():
    from tst.evaluators.language_model import output_layer

    full = output_layer({"emb_dim": 4, "softmax": "full", "cutoffs": [2000]}, 100)
    assert full == {"emb_dim": 4, "softmax": "full"}
    assert output_layer({"softmax": "adaptive", "cutoffs": [6000, 2000, 2000]}, 9400) == {
        "softmax": "adaptive",
        "cutoffs": [2000, 6000],
        "div_value": 4.0,
    }
    assert output_layer({"softmax": "adaptive", "cutoffs": [2000, 6000]}, 3000)["cutoffs"] == [2000]
    small = output_layer({"softmax": "adaptive", "cutoffs": [2000, 6000]}, 2000)  # a cutoff must be < V
    assert small == {"softmax": "full", "adaptive_cutoffs_dropped": [2000, 6000]}
    # the 2nd cluster's projection would be 8 // 4**2 = 0 wide: refused, naming the keys
    with pytest.raises(ValueError, match="hidden_dim 8.*div_value 4.*cutoffs"):
        output_layer({"hidden_dim": 8, "softmax": "adaptive", "cutoffs": [10, 20]}, 100)


@pytest.mark.parametrize("softmax", ["full", "adaptive"])
def test_lm_learns_deterministic_corpus_and_round_trips(tmp_path, softmax):
    """Two equally likely sentences: PP of the optimum = exp(log 2 / 4) (one binary choice per 4 tokens). Adaptive:
    ids x y z = 4 5 6, cutoff 5 puts y and z in a cluster, so the two choices (x or y first) cross the head /
    cluster boundary; cutoff 99 is past the vocabulary and dropped."""
    torch.set_num_threads(1)
    train = [["x", "y", "z"], ["y", "x", "z"]] * 100
    vocab = Vocab.build(train)
    ckpt = train_lm(
        train,
        train[:2],
        vocab,
        {"emb_dim": 16, "hidden_dim": 32, "dropout": 0.0, "softmax": softmax, "cutoffs": [5, 99]},
        {"max_epochs": 30, "patience": 30, "lr": 0.01, "batch_size": 20, "device": "cpu"},
        log=lambda m: None,
    )
    assert ckpt["config"]["model"]["softmax"] == softmax
    assert ckpt["config"]["model"].get("cutoffs") == ([5] if softmax == "adaptive" else None)
    assert ckpt["metrics"]["n_train_tokens"] == 200 * 4
    optimum = math.exp(math.log(2) / 4)
    assert optimum - 1e-3 < ckpt["metrics"]["dev_perplexity"] < optimum + 0.02
    torch.save(ckpt, tmp_path / "lm.pt")
    lm = load_lm(tmp_path / "lm.pt")
    assert isinstance(lm.model, GRULanguageModel) and lm.vocab.itos == vocab.itos
    assert lm.model.softmax == softmax
    if softmax == "adaptive":
        assert lm.model.out.cutoffs == [5, len(vocab)]
    assert abs(lm.perplexity(train[:2]) - ckpt["metrics"]["dev_perplexity"]) < 1e-6
    # a PP score JSON says how its LM was trained
    from tst.metrics.perplexity import perplexity

    details = perplexity(["x y z"], lm).details["lm_training"]
    assert details["softmax"] == softmax and details.get("cutoffs") == ckpt["config"]["model"].get("cutoffs")
    assert details["epochs"] == 30 and details["stopped"] == "max_epochs 30"
    assert details["n_train_tokens"] == 800 and details["dev_perplexity"] == ckpt["metrics"]["dev_perplexity"]


def test_lm_settings_split_model_training_and_style_start():
    from tst.evaluators.language_model import lm_settings

    cfg = {"emb_dim": 8, "softmax": "adaptive", "cutoffs": [5], "lr": 0.01, "max_epochs": 3}
    cfg |= {"style_init": "joint", "style_epochs": 2, "min_count": 1}
    model, train = lm_settings(cfg, warm_start=False)
    assert model == {"emb_dim": 8, "softmax": "adaptive", "cutoffs": [5]}
    assert train == {"lr": 0.01, "max_epochs": 3, "min_count": 1}
    assert lm_settings(cfg, warm_start=True)[1]["max_epochs"] == 2
    # a block without style_epochs is config.yaml's, resolved (its style_epochs: 0.5)
    from tst.defaults import evaluator_defaults

    assert lm_settings(evaluator_defaults("lm", {"max_epochs": 3}), warm_start=True)[1]["max_epochs"] == 0.5


def test_lm_init_only_for_style_lms_asked_to_start_from_the_joint_lm():
    from tst.rule_inputs import lm_init

    ds = {"datasets": {"yelp": {}}}
    cfg = {**ds, "evaluators": {"lm": {"style_init": "joint"}}}
    assert lm_init(cfg, "yelp", "style0") == "results/yelp/evaluators/lm_joint.pt"
    assert lm_init(cfg, "yelp", "joint") is None
    assert lm_init({**ds, "evaluators": {"lm": {"style_init": "scratch"}}}, "yelp", "style1") is None
    # a config that does not say: config.yaml's style_init, joint
    assert lm_init({**ds, "evaluators": {}}, "yelp", "style1") == "results/yelp/evaluators/lm_joint.pt"


def test_warm_start_keeps_the_initial_weights_unless_dev_improves():
    """With lr 0 no step changes the weights, so no evaluation beats the start: the result is the initial
    checkpoint's weights, its dev perplexity, and the checkpoint says where it started."""
    torch.set_num_threads(1)
    train = [["x", "y", "z"], ["y", "x", "z"]] * 20
    vocab = Vocab.build(train)
    model_cfg = {"emb_dim": 8, "hidden_dim": 16, "dropout": 0.0, "softmax": "adaptive", "cutoffs": [5]}
    base = train_lm(train, train[:2], vocab, model_cfg, {"max_epochs": 2, "lr": 0.01}, log=lambda m: None)
    base["name"] = "lm_joint.pt"
    tuned = train_lm(
        train, train[:2], vocab, model_cfg, {"max_epochs": 1, "lr": 0.0}, log=lambda m: None, init=base
    )
    assert tuned["metrics"]["init_dev_perplexity"] == pytest.approx(
        base["metrics"]["dev_perplexity"], rel=1e-6
    )
    assert tuned["metrics"]["dev_perplexity"] == tuned["metrics"]["init_dev_perplexity"]
    assert all(torch.equal(tuned["state_dict"][k], v) for k, v in base["state_dict"].items())
    assert tuned["init"] == "lm_joint.pt"
    with pytest.raises(ValueError, match="model .* differs"):
        train_lm(train, train[:2], vocab, {**model_cfg, "hidden_dim": 32}, {}, log=lambda m: None, init=base)


def test_full_softmax_overlay_gives_pang_and_gimpels_lms(repo_root):
    """configs/lm_full_softmax.yaml over config.yaml: Pang & Gimpel's LM settings (GRU 128/256,
    dropout 0.5, Adam 1e-3, batch 64, clip 5, 3 epochs evaluated once each, patience 1) with a full softmax and
    style LMs from scratch."""
    import yaml

    from tst.config_files import merge_configs
    from tst.evaluators.language_model import lm_settings, output_layer
    from tst.rule_inputs import lm_init

    configs = [
        yaml.safe_load((repo_root / p).read_text()) for p in ("config.yaml", "configs/lm_full_softmax.yaml")
    ]
    config = merge_configs(configs)
    settings = config["evaluators"]["lm"]
    model, train = lm_settings(settings, lm_init(config, "demo", "style0") is not None)
    assert output_layer(model, 9376) == {
        "emb_dim": 128,
        "hidden_dim": 256,
        "n_layers": 1,
        "dropout": 0.5,
        "softmax": "full",
    }
    assert {k: train[k] for k in ("lr", "batch_size", "max_epochs", "patience", "seed", "clip")} == {
        "lr": 0.001,
        "batch_size": 64,
        "max_epochs": 3,
        "patience": 1,
        "seed": 1,
        "clip": 5.0,
    }
    assert train.get("evals_per_epoch", 1) == 1 and lm_init(config, "demo", "style1") is None


def test_the_demo_keeps_batch_64_and_every_other_dataset_takes_batch_256(repo_root):
    """evaluators.lm trains at batch 256, lr 5e-3 decayed linearly over 1.5 epochs at dropout 0.2, cutoffs
    1,000 / 6,000 (docs/performance.md: on Yelp the joint LM reaches a lower dev PP in half the time of dropout 0.5
    at a constant 3e-3 over 3 epochs); the style classifiers, evaluators.cnn and lstm, at batch 256, lr 3e-3 (the
    declared rule there). The demo's 4,800 training sentences would give 19 updates an epoch, so datasets.demo
    keeps batch 64 at lr 1e-3 for all three, and its LM the settings it had before: dropout 0.5, 3 epochs at a
    constant rate, cutoffs 2,000 / 6,000. Every other key is the global block's, for both datasets."""
    import yaml

    from tst.stages import evaluator_settings

    config = yaml.safe_load((repo_root / "config.yaml").read_text())
    yelp = yaml.safe_load((repo_root / "configs" / "yelp.yaml").read_text())
    config["datasets"]["yelp"] = yelp["datasets"]["yelp"]
    demo_lm = {"dropout": 0.5, "max_epochs": 3, "lr_schedule": "constant", "cutoffs": [2000, 6000]}
    yelp_lm = {"dropout": 0.2, "max_epochs": 1.5, "lr_schedule": "linear", "cutoffs": [1000, 6000]}
    for section in ("lm", "cnn", "lstm"):
        demo, other = (evaluator_settings(config, section, d) for d in ("demo", "yelp"))
        assert (demo["batch_size"], demo["lr"]) == (64, 0.001), section
        assert (other["batch_size"], other["lr"]) == (256, 0.005 if section == "lm" else 0.003), section
        rest = ("batch_size", "lr", "min_count", *(demo_lm if section == "lm" else ()))
        if section == "lm":
            assert {k: demo[k] for k in demo_lm} == demo_lm and {k: other[k] for k in yelp_lm} == yelp_lm
        assert {k: v for k, v in demo.items() if k not in rest} == {
            k: v for k, v in other.items() if k not in rest
        }, section
    # the rule's init input follows the dataset's own keys too: a dataset that trains its style LMs from scratch
    # gets no joint LM to start from, while the others still do
    from tst.rule_inputs import lm_init

    config["datasets"]["demo"]["lm"] = {**config["datasets"]["demo"]["lm"], "style_init": "scratch"}
    assert lm_init(config, "demo", "style0") is None
    assert lm_init(config, "yelp", "style0") == "results/yelp/evaluators/lm_joint.pt"


def test_the_training_summary_names_a_set_lr_schedule_only():
    """A PP score JSON names the learning-rate schedule its LM was trained with when the checkpoint set one;
    a checkpoint from before the key (or one that left it out) says nothing about it."""
    from tst.evaluators.language_model import training_summary

    ckpt = {"config": {"model": {"softmax": "adaptive"}, "train": {"lr": 0.003}}, "metrics": {}}
    assert "lr_schedule" not in training_summary(ckpt)
    ckpt["config"]["train"]["lr_schedule"] = "linear"
    assert training_summary(ckpt)["lr_schedule"] == "linear"
