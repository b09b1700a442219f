"""Normalization, the length filter, and robust reading of input files."""

from collections import Counter

import pytest

from tst.data.normalize import is_number, length_ok, normalize_tokens, normalizer, ptb_tokenize
from tst.data.reader import DataFileError, read_text_lines


def test_ptb_tokenization_of_raw_references():
    # Li et al.'s human rewrite of the first yelp test sentence (raw text, as released)
    raw = "Ever since joes has changed hands it's gotten better and better."
    assert normalize_tokens(raw, tokenize=True) == [
        "ever",
        "since",
        "joes",
        "has",
        "changed",
        "hands",
        "it",
        "'s",
        "gotten",
        "better",
        "and",
        "better",
        ".",
    ]
    assert ptb_tokenize("I don't know.") == ["I", "do", "n't", "know", "."]


def test_lowercase_and_whitespace():
    assert normalize_tokens("  The  FOOD\twas   Great ! ") == ["the", "food", "was", "great", "!"]
    assert normalize_tokens("The FOOD", lowercase=False) == ["The", "FOOD"]


def test_numbers_fu_et_al():
    f = normalizer({"lowercase": True, "numbers": True})
    assert f("Top 10 tips for 2018 : 3.5 % of 1,000 cells in 2nd trial") == [
        "top",
        "<num>",
        "tips",
        "for",
        "<num>",
        ":",
        "<num>",
        "%",
        "of",
        "<num>",
        "cells",
        "in",
        "<num>",
        "trial",
    ]
    assert not is_number("h2o") and not is_number("covid-19") and is_number("50%")


def test_length_filter():
    assert length_ok(["a"] * 15, 1, 15) and not length_ok(["a"] * 16, 1, 15)
    assert not length_ok(["a"] * 5, 6, 25) and length_ok(["a"] * 6, 6, 25) and length_ok(["a"] * 99, 1, None)


def test_reader_drops_and_counts(tmp_path):
    p = tmp_path / "sentiment.train.0"
    p.write_bytes(
        b"good food .\n\n   \nbad \xff\xfe bytes\n" + b"x" * 2001 + b"\n" + "caf\u00e9 ok\n".encode()
    )
    counts = Counter()
    lines = read_text_lines(p, "datasets.yelp.source.files.train", max_chars=2000, counts=counts)
    assert lines == ["good food .", "caf\u00e9 ok"]
    assert counts == Counter(read=6, empty=2, non_utf8=1, too_long=1)


def test_missing_and_empty_files_name_the_config_key(tmp_path):
    with pytest.raises(DataFileError, match=r"datasets\.yelp\.source\.files\.train") as e:
        read_text_lines(tmp_path / "nope.txt", "datasets.yelp.source.files.train")
    assert "nope.txt" in str(e.value)
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(DataFileError, match="empty"):
        read_text_lines(tmp_path / "empty.txt", "datasets.x.source.files.dev")
