"""Deterministic splits with no leakage between them."""

import pytest

from tst.data.splits import remove_leakage, split_pool


def test_split_pool_sizes_and_determinism():
    pool = [f"sentence {i}" for i in range(100)] + ["sentence 5", "sentence 7"]  # 2 repeats
    a = split_pool(pool, dev_fraction=0.1, test_fraction=0.2, seed=3)
    b = split_pool(list(pool), dev_fraction=0.1, test_fraction=0.2, seed=3)
    assert a == b
    assert (len(a["test"]), len(a["dev"]), len(a["train"])) == (20, 10, 70)  # of 100 unique
    assert sorted(a["test"] + a["dev"] + a["train"]) == sorted(set(pool))
    c = split_pool(pool, dev_fraction=0.1, test_fraction=0.2, seed=4)
    assert c["test"] != a["test"]
    with pytest.raises(ValueError):
        split_pool(pool, 0.6, 0.5, 0)


def test_remove_leakage_priorities():
    splits = {
        "train": {0: ["a", "b", "b", "t1", "d1"], 1: ["c", "t0"]},
        "dev": {0: ["d1", "d2", "t1"], 1: ["d3"]},
        "test": {0: ["t0"], 1: ["t1", "t1x"]},
    }
    clean, counts = remove_leakage(splits)
    assert clean == {
        "train": {0: ["a", "b"], 1: ["c"]},
        "dev": {0: ["d1", "d2"], 1: ["d3"]},
        "test": {0: ["t0"], 1: ["t1", "t1x"]},
    }
    assert counts["train"][0] == {"duplicates": 1, "in_other_split": 2}  # b repeated; t1 (test), d1 (dev)
    assert counts["train"][1] == {"duplicates": 0, "in_other_split": 1}  # t0 is a test sentence of style 0
    assert counts["dev"][0] == {"duplicates": 0, "in_other_split": 1}
    everything = {s: {x for st in clean[s].values() for x in st} for s in clean}
    assert not everything["test"] & everything["dev"] and not everything["test"] & everything["train"]
    assert not everything["dev"] & everything["train"]


def test_explicit_test_file_keeps_repeats():
    splits = {"train": {0: ["x", "t"]}, "dev": {0: []}, "test": {0: ["t", "u", "t"]}}
    clean, counts = remove_leakage(splits, keep_repeats=("test",))
    assert clean["test"][0] == ["t", "u", "t"] and clean["train"][0] == ["x"]
    assert counts["test"][0] == {"duplicates": 0, "in_other_split": 0}
