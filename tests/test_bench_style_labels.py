"""bench/style_labels.py --mixed: which rated rewrites the style score reads as mixed, and the rows of
docs/style_and_gm.md's mixed-reading table, checked against the style score's own function on a word classifier."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tst.metrics.style import part_probs

SPEC = importlib.util.spec_from_file_location(
    "style_labels", Path(__file__).resolve().parents[1] / "bench" / "style_labels.py"
)
style_labels = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(style_labels)

PRAISE, COMPLAINT = {"great", "loved", "amazing"}, {"bad", "rude", "cold"}


class Words:
    """P(positive): 0.95 with praise only, 0.05 with a complaint only, 0.5 + 0.1 a word of praise with both,
    0.5 with neither."""

    def predict_proba(self, sentences):
        def p1(s):
            good, bad = sum(w in PRAISE for w in s), bool(COMPLAINT & set(s))
            return 0.5 + 0.1 * good if good and bad else 0.95 if good else 0.05 if bad else 0.5

        p = np.array([p1(s) for s in sentences])
        return np.stack([1 - p, p], axis=1)


JOIN, JOIN2 = " , so i loved it !", " , so i loved it , great !"  # read 0.6 and 0.7 beside a complaint
SOURCES = ["the food was bad .", "the staff was rude .", "the soup was cold .", "the room was bad ."]
# per system: the outputs for SOURCES (each negative, rewritten positive) and people's sentiment ratings
SYSTEMS = {
    "human": (
        ["the food was great !", "the staff was amazing .", "the soup was great .", "the room was great ."],
        [5, 4, 5, 4],
    ),
    "joined": ([s[:-2] + tail for s, tail in zip(SOURCES, [JOIN, JOIN2, JOIN, JOIN2])], [3, 2, 4, 1]),
    "copy": (SOURCES, [1, 1, 2, 1]),
}


def rated_table() -> pd.DataFrame:
    rows = [
        {"system": name, "source": src, "output": out, "source_style": 0, "sentiment": rating}
        for name, (outs, ratings) in SYSTEMS.items()
        for src, out, rating in zip(SOURCES, outs, ratings)
    ]
    return pd.DataFrame(rows)


def test_the_joined_rewrites_are_the_mixed_ones_and_own_half_is_the_style_score():
    table = rated_table()
    got = style_labels.mixed_readings(Words(), table)
    # the source's complaint beside a new verdict: its content parts read 0.05, the whole output 0.6 or 0.7
    assert got["n_mixed"] == len(SOURCES)
    out = [s.split() for s in table["output"]]
    src = [s.split() for s in table["source"]]
    r = part_probs(out, src, [1] * len(out), Words())
    assert r[table["system"] == "joined"].tolist() == pytest.approx([0.3, 0.35, 0.3, 0.35])
    # the row "own / 2" is the style score itself, read by its own function
    assert got["own/2"] == style_labels.agreement(table, r)
    # "whole / 2": the joined rewrites at half their whole reading, their one part's here: as own / 2
    assert got["whole/2"] == style_labels.agreement(table, r)
    # the bound: each mixed rewrite at people's rating scaled into [0, 1/2]: (rating - 1) / 8
    bound = r.copy()
    bound[table["system"] == "joined"] = [(x - 1) / 8 for x in SYSTEMS["joined"][1]]
    assert got["bound"] == style_labels.agreement(table, bound)
    # within the mixed rewrites: readings ranked [1.5, 3.5, 1.5, 3.5] against people's [3, 2, 4, 1], by hand
    # Pearson of the ranks: -4 / (2 sqrt 5)
    assert got["within_mixed"] == {"own": round(-2 / 5**0.5, 4), "whole": round(-2 / 5**0.5, 4)}
