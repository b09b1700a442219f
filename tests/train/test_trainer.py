"""Training loop: resume gives the same weights as an uninterrupted run (CPU), NaN stops cleanly,
dev transfers are aligned with their sources, batches are length-bucketed."""

import csv
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from tst import layout
from tst.io import read_lines
from tst.train.batching import epoch_plan, pad_batch, steps_per_epoch
from tst.train.checkpoint import load_for_transfer
from tst.train.step import NonFiniteLoss
from tst.train.trainer import train
from tst.vocab import Vocab

torch.set_num_threads(1)

WORDS0 = ["the", "food", "was", "cold", "and", "bland", "service", "slow", "rude", "never", "again"]
WORDS1 = ["the", "food", "was", "warm", "and", "tasty", "service", "fast", "kind", "always", "back"]
CFG = {
    "emb_dim": 8,
    "style_dim": 4,
    "content_dim": 8,
    "disc_filters": 4,
    "disc_widths": [2, 3],
    "disc2_widths": [1, 2],
    "batch_size": 8,
    "epochs": 2,
    "dev_batch_size": 4,
}
# The trainer's defaults when they were Pang & Gimpel's values (§5.2) and Shen et al.'s code's, not config.yaml's:
# the settings the stored digests and measured values of tests that leave keys unset were computed with
PAPER_DEFAULTS = {
    "emb_dim": 100,
    "style_dim": 200,
    "content_dim": 500,
    "dropout": 0.5,
    "disc_widths": [3, 4, 5],
    "disc_filters": 128,
    "disc2_widths": [1, 2, 3],
    "batch_size": 64,
    "epochs": 20,
    "lr": 1e-4,
    "betas": [0.9, 0.999],
    "grad_clip": 30.0,
    "grad_clip_scope": "all",
    "reverse_encoder": True,
    "disc_negative_slope": 0.0,
    "embedding_init": "torch",
    "gamma_init": 1.0,
    "gamma_decay": 0.5,
    "gamma_min": 0.001,
    "soft_decoding": "gumbel",
    "cyc_start": 1.0,
    "cyc_ramp": 1.0,
    "cyc_dropout": True,  # the cycle's x~ decoded with the training dropout, eq. 7's epochs from 0, eq. 6 summed
    "adv_threshold": 1.2,  # over the styles: the code of these values, before Shen et al.'s October-2017 ones
    "gp_xi": 10.0,
    "adv2_decay": 0.5,
    "adv2_first_epoch": 0,
    "gp_at": "interpolates",
    "cls_hidden": 64,
    "para_batch_size": 64,
    "lm_norm": "sum",
    "dev_batch_size": 128,
    "decode_extra": 5,
    "precision": "auto",
}
# M7-like: every term of Pang & Gimpel's L_total is exercised
M7 = {"lambda_cyc": 5, "lambda_para": 0.2, "lambda_lm": 1e-3, "lambda_adv2": 1}


def corpus(seed, n):
    rng = np.random.default_rng(seed)
    return [
        [str(w) for w in rng.choice(WORDS0 if seed % 2 == 0 else WORDS1, rng.integers(1, 7))]
        for _ in range(n)
    ]


class TinyLM(nn.Module):
    """A frozen 'LM' with forward_soft (the GRULanguageModel interface); nan_after: poison later calls."""

    def __init__(self, V, nan_after=None):
        super().__init__()
        torch.manual_seed(5)
        self.lin = nn.Linear(V, V)
        self.calls, self.nan_after = 0, nan_after

    def forward_soft(self, probs):
        self.calls += 1
        out = self.lin(probs)
        if self.nan_after is not None and self.calls > self.nan_after:
            out = out * float("nan")
        return out


def setup():
    train_s = [corpus(0, 30), corpus(1, 21)]
    dev = [corpus(2, 5), corpus(3, 6)]
    vocab = Vocab.build(train_s[0] + train_s[1])
    para = [[(s, s[:-1] or s) for s in train_s[t][:10]] for t in (0, 1)]
    return vocab, train_s, dev, para


def attribute_lists(train_s):
    """Yu et al.'s attribute lists of setup()'s training sentences, per style: independent = the nouns, dependent =
    the sentiment words, per sentence."""
    pol = {"cold", "bland", "slow", "rude", "warm", "tasty", "fast", "kind"}
    return [
        (
            [[w for w in s if w in {"food", "service"}] for s in train_s[t]],
            [[w for w in s if w in pol] for s in train_s[t]],
        )
        for t in (0, 1)
    ]


def run(out, stop=None, lms=None, variant=M7, cfg=CFG, device="cpu"):
    vocab, train_s, dev, para = setup()
    lms = lms or [TinyLM(len(vocab)), TinyLM(len(vocab))]
    return train(
        cfg,
        variant,
        vocab,
        train_s,
        dev,
        out,
        seed=3,
        paraphrase=para,
        lms=lms,
        device=device,
        stop_after_step=stop,
        progress=False,
    )


def test_resume_equals_uninterrupted_run(tmp_path):
    full = run(tmp_path / "a")
    # 30 vs 21 sentences, batch 8 -> 4 steps per epoch, checkpoints after steps 2, 4, 6, 8
    run(tmp_path / "b", stop=3)  # "killed" after step 3: the last checkpoint is ep0.5 (step 2)
    assert sorted(p.name for p in (tmp_path / "b" / "checkpoints").glob("*.pt")) == ["ep0.5.pt"]
    (tmp_path / "b" / "transfers" / "dev.ep0.5.1.txt").unlink()  # as Snakemake does to a killed job's outputs
    resumed = run(tmp_path / "b")
    for k, v in full.state_dict().items():
        assert torch.equal(v, resumed.state_dict()[k]), k
    a = read_lines(tmp_path / "a" / "losses.csv")
    b = read_lines(tmp_path / "b" / "losses.csv")
    assert len(a) == 1 + 8 and a == b
    for e in ("ep0.5", "ep1.0", "ep1.5", "ep2.0"):
        for t in (0, 1):
            assert read_lines(tmp_path / "a" / "transfers" / f"dev.{e}.{t}.txt") == read_lines(
                tmp_path / "b" / "transfers" / f"dev.{e}.{t}.txt"
            )
    ck = torch.load(tmp_path / "b" / "checkpoints" / "ep2.0.pt", weights_only=True)
    assert ck["step"] == 8 and ck["epoch"] == 2.0
    # the checkpoint reloads into a model that transfers like the trained one
    model, vocab = load_for_transfer(tmp_path / "b" / "checkpoints" / "ep2.0.pt")
    assert vocab.itos == setup()[0].itos
    for k, v in full.state_dict().items():
        assert torch.equal(v, model.state_dict()[k]), k


def test_losses_csv_and_dev_transfers(tmp_path):
    run(tmp_path, variant={"lambda_cyc": 5}, cfg={**CFG, "cyc_start": 1.0, "cyc_ramp": 1.0})  # M2
    with open(tmp_path / "losses.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["step"]) for r in rows] == list(range(1, 9))
    assert all(r["rec"] and r["adv"] and r["d0"] and not r["lm"] for r in rows)
    # lambda_cyc warm-up (cyc_start 1, cyc_ramp 1 epoch; 4 steps per epoch): update k has done
    # (k - 1) / 4 epochs, so 0 for k <= 5, then 5 * 0.25, 5 * 0.5, 5 * 0.75; eq. 4 is computed only when > 0
    assert [float(r["lambda_cyc"]) for r in rows] == [0, 0, 0, 0, 0, 1.25, 2.5, 3.75]
    assert [bool(r["cyc"]) for r in rows] == [False] * 5 + [True] * 3
    # diagnostics only on the half-epoch checkpoint rows (steps 2, 4, 6, 8)
    assert [bool(r["dev_distinct"]) for r in rows] == [False, True] * 4
    assert [bool(r["z_probe"]) for r in rows] == [False, True] * 4
    assert all(0 < float(r["dev_distinct"]) <= 1 for r in rows[1::2])
    assert float(rows[0]["gamma"]) == 1.0 and float(rows[-1]["gamma"]) == 0.5  # Shen's annealing, epoch 2
    dev = setup()[2]
    for t in (0, 1):  # where the rules declare them (tst.layout: the trainer does not import it)
        out = read_lines(tmp_path / layout.TRANSFERS / layout.output_file("dev", "ep1.5", t))
        assert len(out) == len(dev[t])
    ckpt = Path(layout.checkpoint(ckpt="ep2.0")).relative_to(layout.model())
    assert (tmp_path / ckpt).is_file()


def test_nan_loss_stops_with_message_and_keeps_last_checkpoint(tmp_path):
    vocab = setup()[0]
    # the LM is called twice per step (one per style): NaN from step 3 on
    lms = [TinyLM(len(vocab), nan_after=2), TinyLM(len(vocab), nan_after=2)]
    with pytest.raises(NonFiniteLoss, match=r"\(lm, total\) at step 3: .*rec=.*lm=nan"):
        run(tmp_path, lms=lms)
    ck = torch.load(tmp_path / "checkpoints" / "ep0.5.pt", weights_only=True)
    assert ck["step"] == 2 and not (tmp_path / "checkpoints" / "ep1.0.pt").exists()


def test_epoch_plan_buckets_by_length_and_balances_styles():
    len0 = [5, 1, 3, 2, 4, 6, 1, 2]
    len1 = [2, 2, 9]
    plan = epoch_plan(len0, len1, 3, seed=1, epoch=0)
    assert len(plan) == steps_per_epoch(8, 3, 3) == 3
    seen0 = sorted(i for b0, _ in plan for i in b0)
    assert seen0 == list(range(8))  # every style-0 sentence once
    assert sum(len(b1) for _, b1 in plan) == 8  # style 1 topped up to 8 by resampling
    for b0, _ in plan:  # each chunk of the length-sorted order is contiguous in length
        ls = sorted(len0[i] for i in b0)
        others = [len0[i] for i in range(8) if i not in b0]
        assert all(x <= ls[0] or x >= ls[-1] for x in others)
    assert [b[0].tolist() for b in epoch_plan(len0, len1, 3, 1, 0)] == [b[0].tolist() for b in plan]
    assert [b[0].tolist() for b in epoch_plan(len0, len1, 3, 1, 1)] != [b[0].tolist() for b in plan]


def test_pad_batch():
    tokens, lengths, targets = pad_batch([[4, 5], [6]], length=3)
    assert tokens.tolist() == [[4, 5, 0], [6, 0, 0]]
    assert lengths.tolist() == [2, 1]
    assert targets.tolist() == [[4, 5, 3, 0], [6, 3, 0, 0]]


def test_write_transfers_unmasks_entities(tmp_path):
    from tst.train.transfer import write_transfers

    outs = [["i", "met", "-PERSON-", "in", "-LOCATION-"], ["no", "names"]]
    ents = [[["-PERSON-", "john smith"], ["-LOCATION-", "paris"]], []]
    write_transfers(tmp_path / "m.txt", outs, ents, tmp_path / "u.txt")
    assert read_lines(tmp_path / "m.txt") == ["i met -PERSON- in -LOCATION-", "no names"]
    assert read_lines(tmp_path / "u.txt") == ["i met john smith in paris", "no names"]


def test_paraphrase_filter_and_sample(tmp_path):
    from tst.data.paraphrase import load_paraphrases

    (tmp_path / "p.tsv").write_text(
        "the food is great\tthe food is great !\n"  # substring: dropped
        "good pizza\tthe pizza was good\n"
        "nice staff\tfriendly people working\n"
        "a\ta\n",
        encoding="utf-8",
    )  # identical: dropped
    pairs = load_paraphrases(tmp_path / "p.tsv")
    assert pairs == [
        (["good", "pizza"], ["the", "pizza", "was", "good"]),
        (["nice", "staff"], ["friendly", "people", "working"]),
    ]
    one = load_paraphrases(tmp_path / "p.tsv", n=1, seed=0)
    assert len(one) == 1 and one[0] in pairs and one == load_paraphrases(tmp_path / "p.tsv", n=1, seed=0)


def test_attribute_regularizer_bags_and_training(tmp_path):
    from tst.train.step import _bag

    W = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
    reps, has = _bag(W, [[1, 2], [], [2]])
    assert reps.tolist() == [[2.0, 3.0], [0.0, 0.0], [3.0, 4.0]] and has.tolist() == [1.0, 0.0, 1.0]

    vocab, train_s, dev, _ = setup()
    attrs = attribute_lists(train_s)
    train(
        CFG,
        {"lambda_attr": 1.0},
        vocab,
        train_s,
        dev,
        tmp_path,
        seed=3,
        device="cpu",
        progress=False,
        attributes=attrs,
    )
    with open(tmp_path / "losses.csv") as f:
        rows = list(csv.DictReader(f))
    vals = [float(r["attr"]) for r in rows]
    assert all(-2.0 <= v <= 2.0 for v in vals) and any(v != 0 for v in vals)  # two cosine differences
    bad = [(attrs[0][0][:-1], attrs[0][1][:-1]), attrs[1]]
    with pytest.raises(ValueError, match="not aligned"):
        train(
            CFG,
            {"lambda_attr": 1.0},
            vocab,
            train_s,
            dev,
            tmp_path / "x",
            seed=3,
            device="cpu",
            progress=False,
            attributes=bad,
        )


def test_autoencoder_learns_to_reconstruct(tmp_path):
    """Eq. 2 alone (lambda_adv = 0), no dropout: 16 sentences are reconstructed exactly after training."""
    vocab, train_s, _, _ = setup()
    sents = [train_s[0][:16], train_s[1][:16]]
    cfg = {
        "emb_dim": 32,
        "style_dim": 16,
        "content_dim": 64,
        "disc_filters": 4,
        "batch_size": 16,
        "epochs": 100,
        "dropout": 0.0,
        "lr": 3e-3,
    }
    model = train(
        cfg,
        {"lambda_adv": 0},
        vocab,
        sents,
        [sents[0][:1], sents[1][:1]],
        tmp_path,
        seed=1,
        device="cpu",
        progress=False,
    )
    model.eval()
    for t in (0, 1):
        tokens, lengths, _ = pad_batch([vocab.encode(s) for s in sents[t]])
        out = model.greedy(model.encode(tokens, lengths, t), t, 10).tolist()
        assert [vocab.decode(o) for o in out] == sents[t]


class _FixedDecoder(nn.Module):
    """encode/greedy stand-in that always emits the same id sequence."""

    def __init__(self, ids):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(1))
        self.ids = ids

    def encode(self, tokens, lengths, style):
        return torch.zeros(tokens.size(0), 1)

    def greedy(self, z, style, max_len):
        return torch.tensor([self.ids] * z.size(0))


def test_transfers_of_a_bpe_model_are_words():
    from tst.train.transfer import transfer_sentences

    bpe_vocab = Vocab(["\u2581the", "\u2581fo", "od", "\u2581was"])
    ids = bpe_vocab.encode(["\u2581the", "\u2581fo", "od"]) + [Vocab.eos_id]
    out = transfer_sentences(_FixedDecoder(ids), bpe_vocab, [["\u2581was"]], 0, device="cpu")
    assert out == [["the", "food"]]
    word_vocab = Vocab(["the", "fo", "od"])  # a word-level vocabulary is left alone
    ids = word_vocab.encode(["the", "fo", "od"]) + [Vocab.eos_id]
    assert transfer_sentences(_FixedDecoder(ids), word_vocab, [["the"]], 0, device="cpu") == [
        ["the", "fo", "od"]
    ]


def test_rerun_with_other_settings_trains_from_scratch_but_longer_training_resumes(tmp_path):
    same_weights = lambda a, b: all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())
    other = {**CFG, "lr": 3e-3}
    run(tmp_path / "a", stop=3)  # leaves ep0.5.pt trained with the default lr (config.yaml's 6e-3)
    assert same_weights(run(tmp_path / "a", cfg=other), run(tmp_path / "fresh", cfg=other))
    # more epochs on top of a finished run = one uninterrupted run of that length
    run(tmp_path / "b", cfg={**CFG, "epochs": 1})
    assert sorted(p.name for p in (tmp_path / "b" / "checkpoints").glob("*.pt")) == ["ep0.5.pt", "ep1.0.pt"]
    assert same_weights(run(tmp_path / "b"), run(tmp_path / "c"))


def test_bf16_mixed_precision_step_matches_fp32_on_cpu():
    # the bf16 path (precision bf16, on CUDA or CPU) run on CPU: every M7 term stays finite and within
    # bf16's ~3 significant digits of the fp32 step; the parameters stay fp32
    from tst.models.registry import build_model
    from tst.train.step import train_step
    from tst.train.trainer import DEFAULTS, use_bf16
    from tst.variants import resolve

    assert not use_bf16("auto", torch.device("cuda")) and not use_bf16("auto", torch.device("cpu"))
    assert use_bf16("bf16", torch.device("cpu")) and not use_bf16("fp32", torch.device("cuda"))
    with pytest.raises(ValueError, match="precision"):
        use_bf16("fp16", torch.device("cpu"))
    vocab, train_s, _, para = setup()
    cfg = {**DEFAULTS, **CFG}
    lam = resolve(M7)
    b0 = [vocab.encode(s) for s in train_s[0][:8]]
    b1 = [vocab.encode(s) for s in train_s[1][:8]]
    para_ids = [[(vocab.encode(u), vocab.encode(v)) for u, v in para[t]] for t in (0, 1)]
    terms = {}
    for amp in (False, True):
        torch.manual_seed(0)
        model = build_model(cfg, len(vocab), lam)
        opt_g = torch.optim.Adam(model.generator_parameters(), lr=1e-3)
        opt_d = torch.optim.Adam(model.discriminator_parameters(), lr=1e-3)
        lms = [TinyLM(len(vocab)), TinyLM(len(vocab))]
        terms[amp] = train_step(
            model, opt_g, opt_d, b0, b1, lam, cfg, 0, 1, 3, para_ids, lms, torch.device("cpu"), amp
        )
        assert all(p.dtype == torch.float32 for p in model.parameters())
    for k in ("rec", "cyc", "para", "lm", "d0", "d1"):
        assert np.isfinite(terms[True][k])
        assert terms[True][k] == pytest.approx(terms[False][k], rel=0.03), k


def test_log_has_one_readable_line_per_half_epoch(tmp_path, caplog):
    """The training log tells the story: a start line, then per half epoch the label, the step, the mean of
    each loss term over the steps since the last line (equal to the mean of the losses.csv rows) and the
    dev diagnostics."""
    import logging

    cfg = {**CFG, "epochs": 1}
    with caplog.at_level(logging.INFO, logger="tst.train.trainer"):
        run(tmp_path, variant={}, cfg=cfg)
    lines = [r.getMessage() for r in caplog.records if r.name == "tst.train.trainer"]
    with open(tmp_path / "losses.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    spe = len(rows)  # one epoch
    half = -(-spe // 2)
    assert lines[0] == f"cross_aligned seed 3: {spe} steps per epoch, 1 epochs, starting at step 0"
    assert [ln.split(":")[0] for ln in lines[1:]] == ["ep0.5", "ep1.0"]
    rec_first = np.mean([float(r["rec"]) for r in rows[:half]])
    assert f"step {half}, mean over {half} steps:" in lines[1]
    assert f"rec {rec_first:.3f}" in lines[1]
    assert f"dev_distinct {float(rows[-1]['dev_distinct']):.3f}" in lines[2]


def test_training_logs_its_progress_at_the_end(tmp_path, caplog):
    """A run shorter than the progress interval logs one progress line, at its last step: every step of the
    epoch done (tst.progress; the rate and ETA are tested there with a fake clock)."""
    import logging

    with caplog.at_level(logging.INFO, logger="tst.progress"):
        run(tmp_path, variant={}, cfg={**CFG, "epochs": 1})
    with open(tmp_path / "losses.csv", newline="") as f:
        steps = len(list(csv.DictReader(f)))
    lines = [r.getMessage() for r in caplog.records if r.name == "tst.progress"]
    assert len(lines) == 1
    assert lines[0].startswith(f"train {tmp_path}: {steps}/{steps} steps (100.0%), ")
    assert lines[0].endswith(" steps/s, ETA 0s")


def test_settings_a_variant_does_not_read_leave_its_cache_key_and_training_unchanged(tmp_path, caplog):
    from tst.train.checkpoint import run_signature
    from tst.variants import settings_read

    same_weights = lambda a, b: all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())
    m0, m2 = {"lambda_adv": 1}, {"lambda_cyc": 5}
    a = {**CFG, "cyc_start": 0.0, "cyc_ramp": 0.5, "gp_xi": 10.0, "adv2_decay": 0.5, "para_batch_size": 4}
    b = {**CFG, "cyc_start": 1.0, "cyc_ramp": 2.0, "gp_xi": 1.0, "adv2_decay": 0.9, "para_batch_size": 8}
    assert settings_read(a, m0) == CFG  # every gated key dropped: M0 has no cyc, WGAN-GP or paraphrase term
    assert settings_read(a, m2) == {**CFG, "cyc_start": 0.0, "cyc_ramp": 0.5}
    assert settings_read(a, M7) == a
    vocab, train_s, _, _ = setup()
    ids = [[vocab.encode(s) for s in train_s[t]] for t in (0, 1)]
    assert run_signature(a, m0, vocab, ids, 3) == run_signature(b, m0, vocab, ids, 3)
    assert run_signature(a, m2, vocab, ids, 3) != run_signature(b, m2, vocab, ids, 3)
    # the claim behind dropping them: M0 trained under a and under b is the same model, weight for weight
    assert same_weights(run(tmp_path / "a", variant=m0, cfg=a), run(tmp_path / "b", variant=m0, cfg=b))
    # and a run of M0 stopped under a resumes under b (same signature): 3 steps + the rest = one run under b
    run(tmp_path / "c", stop=3, variant=m0, cfg=a)
    caplog.clear()
    assert same_weights(run(tmp_path / "c", variant=m0, cfg=b), run(tmp_path / "b", variant=m0, cfg=b))
    assert "from scratch" not in caplog.text
    run(tmp_path / "d", stop=3, variant=m2, cfg=a)
    caplog.clear()
    run(tmp_path / "d", variant=m2, cfg=b)  # M2 reads the warm-up: its stale checkpoints go
    assert "from scratch" in caplog.text


def test_a_rerun_under_other_training_code_trains_afresh(tmp_path, monkeypatch, caplog):
    # the workflow reruns train_transfer when the training code changes (params.code); the trainer must then not
    # finish the old code's run from its checkpoints: the code hash is part of the run signature
    import logging

    from tst.train import trainer

    caplog.set_level(logging.INFO, logger="tst.train")
    monkeypatch.setattr(trainer, "TRAINING_CODE", "code A")
    run(tmp_path / "a", stop=5)  # 4 steps per epoch: ep0.5 and ep1.0 (steps 2, 4) written, stopped at step 5
    run(tmp_path / "a", stop=6)  # same code: resumes from ep1.0
    assert "starting at step 4" in caplog.text and "training from scratch" not in caplog.text
    caplog.clear()
    monkeypatch.setattr(trainer, "TRAINING_CODE", "code B")
    run(tmp_path / "a")
    assert "starting at step 0" in caplog.text and "or code; training from scratch" in caplog.text
    ck = torch.load(tmp_path / "a" / "checkpoints" / "ep0.5.pt", weights_only=True)
    vocab, train_s, _, _ = setup()
    from tst.train.checkpoint import run_signature
    from tst.train.trainer import with_defaults
    from tst.variants import resolve

    ids = [[vocab.encode(s) for s in train_s[t]] for t in (0, 1)]
    assert ck["signature"] == run_signature(with_defaults(CFG), resolve(M7), vocab, ids, 3, "code B")
    assert ck["signature"] != run_signature(with_defaults(CFG), resolve(M7), vocab, ids, 3, "code A")


def test_truncated_latest_checkpoint_is_set_aside_and_the_one_before_resumed(tmp_path, caplog):
    # 4 steps per epoch (see above): "killed" after step 5, checkpoints ep0.5 (step 2) and ep1.0 (step 4)
    run(tmp_path / "b", stop=5)
    ckpts = tmp_path / "b" / "checkpoints"
    assert sorted(p.name for p in ckpts.glob("*.pt")) == ["ep0.5.pt", "ep1.0.pt"]
    whole = (ckpts / "ep1.0.pt").read_bytes()
    (ckpts / "ep1.0.pt").write_bytes(whole[: len(whole) // 2])  # a full disk: half the file
    resumed = run(tmp_path / "b", stop=4)  # resumes at step 2 (ep0.5) and trains steps 3, 4 again
    assert (ckpts / "ep1.0.pt.broken").read_bytes() == whole[: len(whole) // 2]
    assert "ep1.0.pt: cannot be loaded" in caplog.text and "set aside as ep1.0.pt.broken" in caplog.text
    # the model after step 4 equals an uninterrupted run's after step 4, i.e. the ep1.0 checkpoint that was cut
    ck = torch.load(ckpts / "ep1.0.pt", weights_only=True)
    assert ck["step"] == 4
    full = run(tmp_path / "a", stop=4)
    for k, v in full.state_dict().items():
        assert torch.equal(v, resumed.state_dict()[k]), k
        assert torch.equal(v, ck["model"][k]), k
    rows = read_lines(tmp_path / "b" / "losses.csv")
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2", "3", "4"]
    assert rows == read_lines(tmp_path / "a" / "losses.csv")


def test_a_checkpoint_whose_random_state_cannot_be_restored_leaves_the_model_untouched(tmp_path, caplog):
    # torch takes a random state only as a CPU byte tensor ("RNG state must be a torch.ByteTensor": what a
    # checkpoint loaded onto a GPU once gave). Such a checkpoint is set aside before any of it reaches the model
    # or the optimizers: with every checkpoint so, the run starts afresh from its own initialization
    run(tmp_path / "b", stop=5)  # checkpoints ep0.5 (step 2) and ep1.0 (step 4)
    ckpts = tmp_path / "b" / "checkpoints"
    for name in ("ep0.5.pt", "ep1.0.pt"):
        ck = torch.load(ckpts / name, weights_only=True)
        ck["rng"]["cpu"] = ck["rng"]["cpu"].float()
        torch.save(ck, ckpts / name)
    resumed = run(tmp_path / "b", stop=4)
    assert caplog.text.count("RNG state must be a torch.ByteTensor") == 2
    assert sorted(p.name for p in ckpts.iterdir()) == [
        "ep0.5.pt",
        "ep0.5.pt.broken",
        "ep1.0.pt",
        "ep1.0.pt.broken",
    ]
    full = run(tmp_path / "a", stop=4)
    for k, v in full.state_dict().items():
        assert torch.equal(v, resumed.state_dict()[k]), k


@pytest.mark.parametrize("epoch", [0, 1])
def test_step_total_is_the_lambda_weighted_sum_of_its_terms(epoch):
    """L_total = lambda_rec rec + lambda_adv adv + lambda_adv2 adv2_decay^epoch adv2 (epoch from 1; the loop's
    `epoch` from 0) + lambda_cyc cyc + lambda_para
    para + lambda_lm lm (Pang & Gimpel eq. 8 with eq. 7's decay), recomputed here from the terms the step
    returns; a term whose lambda is 0 is not computed at all."""
    from tst.models.registry import build_model
    from tst.train.step import G_TERMS, train_step
    from tst.train.trainer import DEFAULTS
    from tst.variants import resolve

    vocab, train_s, _, para = setup()
    cfg = {**DEFAULTS, **CFG, "adv_threshold": None}  # the adversarial term always on
    para_ids = [[(vocab.encode(u), vocab.encode(v)) for u, v in para[t]] for t in (0, 1)]
    b0, b1 = ([vocab.encode(s) for s in train_s[t][:8]] for t in (0, 1))
    for variant in (M7, {}, {"lambda_cyc": 2, "lambda_lm": 0.5}):
        lam = resolve(variant)
        torch.manual_seed(0)
        model = build_model(cfg, len(vocab), lam)
        opt_g = torch.optim.Adam(model.generator_parameters(), lr=1e-3)
        opt_d = torch.optim.Adam(model.discriminator_parameters(), lr=1e-3)
        lms = [TinyLM(len(vocab)), TinyLM(len(vocab))]
        terms = train_step(
            model, opt_g, opt_d, b0, b1, lam, cfg, epoch, 1, 3, para_ids, lms, torch.device("cpu")
        )
        weight = {
            "adv": lam["lambda_adv"],
            "adv2": lam["lambda_adv2"] * cfg["adv2_decay"] ** (epoch + 1),  # Shen's epochs from 1
            "cyc": lam["lambda_cyc"],
            "para": lam["lambda_para"],
            "lm": lam["lambda_lm"],
            "attr": lam["lambda_attr"],
        }
        assert set(weight) == set(G_TERMS)
        assert {k for k in G_TERMS if k in terms} == {k for k, w in weight.items() if w > 0}, variant
        by_hand = lam["lambda_rec"] * terms["rec"] + sum(w * terms[k] for k, w in weight.items() if w > 0)
        assert terms["total"] == pytest.approx(by_hand, rel=1e-5), variant


def _step(cfg, variant, epoch, **kw):
    from tst.train.step import Step
    from tst.variants import Variant

    return Step(
        None, [], Variant.of(variant), cfg, epoch, 1, 1, torch.device("cpu"), None, None, None, 1.0, **kw
    )


def test_adv2_weight_counts_epochs_from_one_as_shens_loop():
    """Eq. 7's lambda_6 = 2^-epoch with Shen et al.'s epoch numbers (1, 2, ...): 1/2 in the first epoch (the loop's
    epoch 0), 1/4 in the second; adv2_first_epoch 0 numbers them from 0 (1, then 1/2)."""
    from tst.train.trainer import with_defaults

    cfg = with_defaults({})
    assert cfg["adv2_first_epoch"] == 1
    assert [_step(cfg, {"lambda_adv2": 1}, e).weight("adv2") for e in (0, 1, 2)] == [0.5, 0.25, 0.125]
    assert _step(cfg, {"lambda_adv2": 0.1}, 0).weight("adv2") == pytest.approx(0.05)
    old = with_defaults({"adv2_first_epoch": 0})
    assert [_step(old, {"lambda_adv2": 1}, e).weight("adv2") for e in (0, 1)] == [1.0, 0.5]


class UniformLM(nn.Module):
    """An LM whose next-word distribution is uniform whatever it reads."""

    def forward_soft(self, probs):
        return torch.zeros_like(probs)


def test_lm_term_is_averaged_over_the_two_styles_as_the_other_terms():
    """Eq. 6 over both styles on the /2 of eqs. 4 and 5: with a uniform LM and uniform generator logits every
    position's cross-entropy is log V, so a sentence of T words costs T log V and the mean over the two styles is
    T log V (lm_norm sum: 2 T log V, the sum over the styles)."""
    from tst.train.step import G_TERMS
    from tst.train.trainer import with_defaults

    B, T, V = 3, 4, 7
    logits = [torch.zeros(B, T, V), torch.zeros(B, T, V)]
    probs = [torch.full((B, T, V), 1 / V), torch.full((B, T, V), 1 / V)]
    lms = [UniformLM(), UniformLM()]
    for norm, expected in (("mean", T * math.log(V)), ("sum", 2 * T * math.log(V))):
        cfg = with_defaults({"lm_norm": norm} if norm == "sum" else {})
        s = _step(cfg, {"lambda_lm": 0.001}, 0, f_logits=logits, f_probs=probs)
        s.lms = lms
        value, weight = G_TERMS["lm"](s)
        assert float(value) == pytest.approx(expected, rel=1e-6), norm
        assert weight == 0.001
