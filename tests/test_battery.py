"""tst.battery's reading of its own edits, by hand: Scorer.reads_as_source applies the SAME_STYLE rule (an edit
reads as its source where its log-odds of the target style are at most 1 above the source's); Scorer.terms gives
the joint terms the default GM's factors give when every factor is read for every output."""

import zlib

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


# ---- Scorer.terms: content and fluency read only where the style gain is above 0 ----

LEAN = {"good": 2.0, "great": 2.0, "bad": -2.0, "rude": -2.0}  # log-odds of style 1 each word adds


class Leaning:
    """P(style 1) = sigmoid(sum of the words' leanings): a sentence without them reads 1/2."""

    def predict_proba(self, sentences):
        p1 = np.array([1 / (1 + np.exp(-sum(LEAN.get(w, 0.0) for w in s))) for s in sentences])
        return np.stack([1 - p1, p1], axis=1)


class BagEncoder:
    """Unit sums of word vectors seeded by the word; records what it was asked to encode."""

    def __init__(self):
        self.texts = []

    def encode(self, texts, **kw):
        self.texts += list(texts)
        v = np.array(
            [
                sum(np.random.default_rng(zlib.crc32(w.encode())).normal(size=8) for w in t.split())
                for t in texts
            ]
        )
        return v / np.linalg.norm(v, axis=1, keepdims=True)


class Real:
    """P(real) = a tenth of the length, at most 1; records what it read."""

    def __init__(self):
        self.read = []

    def p_real(self, sentences):
        self.read += [" ".join(s) for s in sentences]
        return [min(1.0, 0.1 * len(s)) for s in sentences]


def test_terms_read_content_and_fluency_only_where_the_style_gain_is_above_0_and_give_every_joint_term():
    from tst.metrics import sbert
    from tst.metrics.joint import content_margin, fluency_above_floor, held_shares, joint
    from tst.metrics.style import gain_of, part_probs

    sources = [
        "the food was bad .",
        "the staff was rude .",
        "the room was bad .",
        "the food was good .",
        "the staff was great .",
        "the room was great .",
    ]
    styles = np.array([0, 0, 0, 1, 1, 1])
    outputs = [
        "the food was good .",
        "the staff was rude , so great !",
        "the room was bad .",
        "the food was bad .",
        "the staff was great and rude .",
        "the view was bad and cold .",
        "",
    ]
    own = [0, 1, 2, 3, 4, 5, 0]
    scorer = object.__new__(battery.Scorer)
    scorer.classifier, scorer.sbert, scorer.acceptability = Leaning(), BagEncoder(), Real()
    scorer.sources, scorer.styles, scorer.floor, scorer._source_reading = sources, styles, 0.2, {}
    scorer.source_vectors = sbert.embed(sources, BagEncoder())
    got = scorer.terms(outputs, own)
    # the same terms with every factor read for every output (the default GM's route, tst.metrics.joint)
    src = [sources[i] for i in own]
    targets = 1 - styles[own]
    s = gain_of(part_probs(outputs, src, targets, Leaning()), part_probs(src, src, targets, Leaning()))
    s[[not y for y in outputs]] = 0.0
    margin, _ = content_margin(
        sbert.embed([y or "." for y in outputs], BagEncoder()), scorer.source_vectors, styles, own=own
    )
    c = margin * held_shares(outputs, src)
    f = fluency_above_floor([min(1.0, 0.1 * len(y.split())) for y in outputs], 0.2)
    # the two transfers gain; the copy, the mixed ones (a verdict added to the source's claim), the one with a part
    # that reads neither style and the empty one do not
    gained = [y for y, g in zip(outputs, s) if g > 0]
    assert gained == ["the food was good .", "the food was bad ."], s
    assert (joint(s, c, f) > 0).sum() == 2  # their content and fluency factors count
    assert got["joint"] == pytest.approx(joint(s, c, f), abs=1e-12)
    assert got["style"] == pytest.approx(s, abs=1e-12)
    assert scorer.sbert.texts == gained and scorer.acceptability.read == gained
    assert np.isnan(got["content"][s == 0]).all() and np.isnan(got["fluency"][s == 0]).all()
    assert got["content"][s > 0] == pytest.approx(c[s > 0]) and got["fluency"][s > 0] == pytest.approx(
        f[s > 0]
    )
