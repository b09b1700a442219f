"""Holes found by planting one bug at a time while the suite stayed green: each test here fails
with its bug planted. Expected values are worked out by hand in the comments."""

import math

import numpy as np
import pytest
import torch
from conftest import Emb
from test_trainer import CFG, run

from tst.io import decode_lines, read_lines
from tst.metrics.bleu import read_references, ref_bleu, self_bleu
from tst.metrics.content_preservation import random_pair_content_preservation
from tst.metrics.wmd import wmd
from tst.vocab import Vocab


@pytest.mark.parametrize("kind", ["corpus", "sentence", "st"])
def test_self_bleu_scores_the_output_against_its_source_not_the_reverse(kind):
    # output "a b c d" against source "a b c d e f": every n-gram precision is 1 (4/4, 3/3, 2/2, 1/1) and the
    # brevity penalty exp(1 - 6/4): BLEU = 100 e^-0.5 = 60.653. Swapped (source scored against the output):
    # precisions 4/6, 3/5, 2/4, 1/3 and no penalty: 100 (1/15)^(1/4) = 50.81.
    r = self_bleu(["a b c d e f"], ["a b c d"], kind)
    assert r.score == pytest.approx(100 * math.exp(-0.5), abs=1e-3)


def test_reference_lines_with_trailing_whitespace_or_cr_give_the_same_references(tmp_path):
    clean, messy = tmp_path / "clean.tsv", tmp_path / "messy.tsv"
    clean.write_bytes(b"the food was bad\tthe food was good\nslow service\tfast service\n")
    messy.write_bytes(b"the food was bad \tthe food was good  \r\nslow service\tfast service\t\r\n")
    sources = ["the food was bad", "slow service"]
    want = [["the food was good"], ["fast service"]]
    assert read_references([clean], sources) == want
    assert read_references([messy], sources) == want
    outputs = ["the food was good", "fast service"]
    assert ref_bleu(outputs, read_references([messy], sources)).score == pytest.approx(100.0)


@pytest.mark.parametrize(
    "data", [b"a b\nc d\n", b"a b\r\nc d\r\n", b"a b\rc d\r", b"a b\r\nc d", b"a b\nc d"], ids=repr
)
def test_the_file_reader_splits_lines_on_lf_crlf_and_cr(tmp_path, data):
    assert decode_lines(data)[0] == ["a b", "c d"]
    (tmp_path / "f.txt").write_bytes(data)
    assert read_lines(tmp_path / "f.txt") == ["a b", "c d"]


def test_cp_random_never_pairs_a_sentence_with_its_own_output():
    # one-hot words: the pooled vectors of two different words are orthogonal (cos 0), a word with itself 1;
    # source i = output i = word i, so a pairing of i with another output gives 0 and any self-pair 1.
    n = 40
    e = Emb({f"w{i}": np.eye(n)[i] for i in range(n)}, dim=n)
    words = [f"w{i}" for i in range(n)]
    for seed in range(10):
        r = random_pair_content_preservation(words, words, e, seed=seed)
        assert r.per_sentence == [0.0] * n, seed


def test_vocab_decode_stops_at_the_first_eos():
    v = Vocab(["a", "b", "c"])  # ids a 4, b 5, c 6
    assert v.decode([4, 5, v.eos_id, 6, v.eos_id, 4]) == ["a", "b"]
    assert v.decode([v.bos_id, 6, v.pad_id, 4, v.eos_id, 5]) == ["c", "a"]
    assert v.decode([v.eos_id, 4]) == []


@pytest.mark.parametrize("batch_size, steps", [(10, {"ep0.5": 2, "ep1.0": 3}), (30, {"ep1.0": 1})])
def test_half_epoch_checkpoint_with_an_odd_number_of_steps(tmp_path, batch_size, steps):
    # test_trainer's corpus: 30 vs 21 sentences. Batch 10 -> ceil(30/10) = 3 steps per epoch: the
    # half-epoch checkpoint comes after ceil(3/2) = 2 steps, the epoch's after 3. Batch 30 -> 1 step: no half.
    run(tmp_path, variant={}, cfg={**CFG, "batch_size": batch_size, "epochs": 1})
    got = {
        p.stem: torch.load(p, map_location="cpu", weights_only=True)["step"]
        for p in (tmp_path / "checkpoints").glob("*.pt")
    }
    assert got == steps


def test_checkpoints_per_epoch(tmp_path):
    # batch 10 -> 3 steps per epoch (as above); 3 checkpoints per epoch -> one after each step, labelled by the
    # epoch fraction (tst.names.epoch_label): 1/3, 2/3, 1 -> ep0.333, ep0.667, ep1.0; each with dev transfers
    run(tmp_path, variant={}, cfg={**CFG, "batch_size": 10, "epochs": 1, "checkpoints_per_epoch": 3})
    got = {
        p.stem: torch.load(p, map_location="cpu", weights_only=True)["step"]
        for p in (tmp_path / "checkpoints").glob("*.pt")
    }
    assert got == {"ep0.333": 1, "ep0.667": 2, "ep1.0": 3}
    assert sorted(p.name for p in (tmp_path / "transfers").glob("dev.ep0.333.*.txt")) == [
        "dev.ep0.333.0.txt",
        "dev.ep0.333.1.txt",
    ]


def test_wmd_with_an_empty_style_lexicon_says_so():
    e = Emb({"a": [1, 0], "b": [0, 1]})
    masked = wmd(["a b"], ["a"], e, style_words=frozenset(), mode="masked")
    assert "STYLE LEXICON IS EMPTY" in masked.variant
    assert "STYLE LEXICON IS EMPTY" not in wmd(["a b"], ["a"], e, style_words={"b"}, mode="masked").variant
