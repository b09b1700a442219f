"""tst.battery's reading of its own edits, by hand: Scorer.reads_as_source applies the SAME_STYLE rule (an edit
reads as its source where its log-odds of the target style are at most 1 above the source's)."""

import numpy as np
import pytest

from tst import battery
from tst.metrics.style import SAME_STYLE

# P(style 1) by sentence: "a b c" is a style-0 source; each edit of it is read against it
P1 = {"a b c": 0.1, "a c": 0.2, "b a c": 0.25, "a b": 0.6}


class Rows:
    def predict_proba(self, sentences):
        p1 = np.array([P1[" ".join(s)] for s in sentences])
        return np.stack([1 - p1, p1], axis=1)


def test_an_edit_reads_as_its_source_within_same_style_in_log_odds():
    scorer = object.__new__(battery.Scorer)  # no models loaded: only the style classifier is read
    scorer.classifier, scorer.sources, scorer.styles = Rows(), ["a b c"], np.array([0])
    scorer._source_reading = {}
    got = scorer.reads_as_source(["a b c", "a c", "b a c", "a b"], [0, 0, 0, 0])
    # log-odds of style 1: the source ln(0.1/0.9) = -2.197; "a c" ln(0.2/0.8) = -1.386 (+0.81, within 1);
    # "b a c" ln(0.25/0.75) = -1.099 (+1.10, beyond); "a b" ln(0.6/0.4) = +0.405 (the style taken out)
    assert got.tolist() == [True, True, False, False]
    assert np.log(0.2 / 0.8) - np.log(0.1 / 0.9) == pytest.approx(0.811, abs=1e-3)
    assert np.log(0.25 / 0.75) - np.log(0.1 / 0.9) == pytest.approx(1.099, abs=1e-3)
    assert SAME_STYLE == 1.0


def test_draw_gives_the_edit_make_draws():
    train = {0: [["the", "food", "was", "cold", "and", "slow", "."]] * 5, 1: [["great", "food", "!"]] * 5}
    corpus = battery.Corpus(train)
    source = "the food was cold and slow ."
    for edit in ("none", "drop", "reorder", "change"):
        form = battery.Form(edit, "comma", "hand")
        e, out = battery.draw(form, source, 0, corpus, 3, 9)
        assert out == battery.make(form, source, 0, corpus, 3, 9)
        # the comma join puts the material after the edited source without its final punctuation
        assert out.startswith(e.rstrip(" .") + " , "), (edit, e, out)
        if edit == "none":
            assert e == source
        else:
            assert e != source
