"""The parts the style factor reads (tst.nlp.parts) and the least on-style part (tst.metrics.style): each case
worked out by hand from the declared rule."""

import numpy as np
import pytest

from tst.metrics.style import part_probs, style_gain, style_probability
from tst.nlp.parts import parts_of, source_span, split_parts


def words(s):
    return s.split()


def test_a_sentence_splits_after_sentence_marks_and_before_discourse_words():
    assert split_parts(words("the food was cold . overall , it was great !")) == [
        words("the food was cold ."),
        words("overall , it was great !"),
    ]
    # "but overall" opens one part: a discourse word after another does not split again
    assert split_parts(words("the food was cold , but overall it was great !")) == [
        words("the food was cold ,"),
        words("but overall it was great !"),
    ]
    assert split_parts(words("great food ; although the wait was long")) == [
        words("great food ;"),
        words("although the wait was long"),
    ]
    # a final mark that no word follows ends nothing; a sentence that opens with "but" is one part
    assert split_parts(words("but the staff was great .")) == [words("but the staff was great .")]
    assert split_parts(words("the food was good ! ! !")) == [words("the food was good ! ! !")]


def test_a_part_of_fewer_than_two_words_joins_its_neighbour():
    # "yet" as an adverb: "yet ." has one word, so it joins the part before it
    assert split_parts(words("i have n't been there yet .")) == [words("i have n't been there yet .")]
    # a one-word first part joins the part after it
    assert split_parts(words("wow . the food was great .")) == [words("wow . the food was great .")]
    assert split_parts([]) == [[]]


def test_an_output_that_contains_its_source_has_the_source_as_a_part():
    src = words("the food was cold .")
    # no split marker: the source's run and the source's own parts are parts of their own
    assert parts_of(words("the food was cold and i loved it"), src) == [
        words("the food was cold and i loved it"),
        words("the food was cold"),
        words("the food was cold ."),
    ]
    two = words("cold food . rude staff !")
    assert parts_of(words("cold food . rude staff , but overall great !"), two) == [
        words("cold food ."),
        words("rude staff ,"),
        words("but overall great !"),
        words("cold food . rude staff"),
        words("rude staff !"),
        words("cold food . rude staff !"),  # its kept material (tst.nlp.align): the source, its "!" aligned
    ]
    # a copy has exactly its source's parts (no extra run: the output adds no word)
    assert parts_of(src, src) == split_parts(src)
    assert source_span(words("the food was cold"), src) is None
    # a one-word source is no run to look for; an output that merely shares words is not a container
    assert source_span(words("great , but the food was great"), words("great .")) is None
    assert source_span(words("the food was not cold"), src) is None


class Table:
    """A style classifier with a fixed P(style 1) per text (KeyError on any other text), counting calls."""

    def __init__(self, p1):
        self.p1, self.calls = p1, 0

    def predict_proba(self, sentences):
        self.calls += 1
        p = np.array([self.p1[" ".join(s)] for s in sentences])
        return np.stack([1 - p, p], axis=1)


P1 = {
    "the food was cold .": 0.05,  # a complaint
    "the food was cold": 0.04,
    "the food was cold ,": 0.06,
    "but overall it was great !": 0.97,  # a verdict of the target style
    "the food was cold , but overall it was great !": 0.90,  # read whole, the verdict carries it
    "the food was hot .": 0.85,  # an honest transfer
    "the food was .": 0.30,  # its source's own words without the swapped one: read apart from the source
    "": 0.5,
}


def test_the_least_on_style_part_by_hand():
    clf = Table(P1)
    src = ["the food was cold ."] * 3
    out = ["the food was cold , but overall it was great !", "the food was hot .", "the food was cold ."]
    r = style_probability(out, [1, 1, 1], clf, sources=src)
    # the trick: own parts "the food was cold ," 0.06 and "but overall it was great !" 0.97 -> 0.06; its content
    # parts, the source's run 0.04 and the source 0.05, read in the source's style (<= 1/2): MIXED x 0.06 = 0.03
    # the transfer: one part, 0.85, no content parts (it adds nothing); the copy: 0.05
    assert r.per_sentence == pytest.approx([0.03, 0.85, 0.05])
    assert clf.calls == 1  # every part of every output in one call
    # without sources (no content parts): the least of the own parts, 0.06
    assert style_probability(out[:1], [1], clf).per_sentence == pytest.approx([0.06])
    # the gain over the source read by the same rule: 0.03 <= 1/2 -> 0; 0.85 - 0.05; the copy 0
    assert style_gain(src, out, [1, 1, 1], clf).tolist() == pytest.approx([0.0, 0.80, 0.0])
    # for a negative target the parts are read as P(style 0): the verdict is the least on-style own part (0.03),
    # the content parts read as the target (0.96, 0.95): 0.03 stands
    assert part_probs(out[:1], src[:1], [0], clf).tolist() == pytest.approx([1 - 0.97])


def test_content_that_reads_in_the_source_style_halves_the_reading_and_on_style_content_does_not_cap_it():
    """A tail with no discourse word (one own part, read on-style) after the whole source: its content parts read
    in the source's style, so R is MIXED times its own reading, below 1/2 however on-style the tail. An honest
    rewrite that adds words keeps material (the source's words and the substitute) that reads as the target:
    R is its own reading, not the lower reading of its kept material."""
    from tst.metrics.style import MIXED, TRANSFERRED

    assert MIXED * 1.0 <= TRANSFERRED
    p1 = P1 | {
        "the food was cold and i loved it": 0.99,
        "the food was hot and fresh .": 0.95,
        "the food was hot .": 0.85,
        "the food was .": 0.30,
    }
    src = ["the food was cold ."] * 2
    out = ["the food was cold and i loved it", "the food was hot and fresh ."]
    clf = Table(p1)
    # the tail: content parts "the food was cold" 0.04, "the food was cold ." 0.05 -> 0.5 x 0.99
    # the rewrite: content part "the food was hot ." 0.85 > 1/2; its unchanged words "the food was ." 0.30 do not
    # read as the source (odds 8 x the source's) -> its own reading 0.95
    assert part_probs(out, src, [1, 1], clf).tolist() == pytest.approx([0.495, 0.95])
    assert style_gain(src, out, [1, 1], clf).tolist() == pytest.approx([0.0, 0.90])


def test_a_verdict_put_where_a_word_was_dropped_is_read_against_the_source():
    """tst.nlp.parts.unchanged_part: "plus" dropped and "outstanding" put in its place pairs as a substitution,
    so the kept material is the whole output; the source's own words without it read as the source does (0.05,
    the source's odds), so they are read too. An honest swap's own words read apart from their source (0.30
    against 0.05: odds 8 times the source's, more than e^SAME_STYLE): its reading stands."""
    from tst.metrics.style import SAME_STYLE
    from tst.nlp.parts import kept_part, unchanged_part

    src, out = words("plus the food was cold ."), words("outstanding -- the food was cold .")
    assert kept_part(out, src) is None and unchanged_part(out, src) == words("the food was cold .")
    assert unchanged_part(words("the food was hot ."), words("the food was cold .")) == words(
        "the food was ."
    )
    p1 = P1 | {"plus the food was cold .": 0.05, "outstanding -- the food was cold .": 0.70}
    clf = Table(p1)
    sources = ["plus the food was cold .", "the food was cold ."]
    outputs = ["outstanding -- the food was cold .", "the food was hot ."]
    # the swap with a verdict: its own reading 0.70, its unchanged words 0.05 read as the source -> 0.5 x 0.70
    assert part_probs(outputs, sources, [1, 1], clf).tolist() == pytest.approx([0.35, 0.85])
    assert style_gain(sources, outputs, [1, 1], clf).tolist() == pytest.approx([0.0, 0.80])
    assert clf.calls == 3  # one call per reading of outputs and sources
    # the own words' odds of the target style more than e^SAME_STYLE times the source's: not its reading, no veto
    odds = 0.05 / 0.95 * np.exp(SAME_STYLE) * 1.01
    p1["the food was cold ."] = odds / (1 + odds)
    assert part_probs(outputs[:1], sources[:1], [1], Table(p1)).tolist() == pytest.approx([0.70])


def test_an_output_that_contains_its_source_has_no_gain_whatever_it_adds():
    rng = np.random.default_rng(1)
    sources = [f"w{i} v{i} u{i} ." for i in range(30)]
    outputs = [f"w{i} v{i} u{i} and overall it was great !" for i in range(30)]
    p1 = {}
    for y, x in zip(outputs, sources):
        for p in parts_of(y.split(), x.split()) + parts_of(x.split(), x.split()):
            p1[" ".join(p)] = float(rng.uniform())
    gain = style_gain(sources, outputs, rng.integers(0, 2, 30).tolist(), Table(p1))
    assert set(gain.tolist()) == {0.0}


def test_a_copy_has_no_gain_whatever_its_parts():
    rng = np.random.default_rng(0)
    sentences = [f"w{i} v{i} . but x{i} y{i} ! overall z{i} q{i}" for i in range(30)]
    p1 = {}
    for s in sentences:
        for p in parts_of(s.split(), s.split()):
            p1[" ".join(p)] = float(rng.uniform())
    gain = style_gain(sentences, sentences, rng.integers(0, 2, 30).tolist(), Table(p1))
    assert set(gain.tolist()) == {0.0}


def test_generated_outputs_whose_content_reads_in_the_source_style_never_gain():
    """Generated forms of the class (the source unedited, a word dropped or two words swapped; a tail or a prefix,
    with or without a discourse word) under random readings of every text: wherever a content part reads at most
    1/2, R is half the least own part, at most 1/2, and the gain is 0; an output with no content part and no
    unchanged words reads its own parts alone."""
    from tst.nlp.parts import content_parts, unchanged_part

    rng = np.random.default_rng(7)
    sources, outputs = [], []
    for i in range(300):
        src = f"w{i} v{i} u{i} t{i} ."
        words_ = src.split()
        edit = i % 3
        if edit == 1:
            words_ = words_[1:]
        elif edit == 2:
            words_[1], words_[2] = words_[2], words_[1]
        tail = ["so", "i", "loved", f"it{i}", "!"] if i % 2 else ["but", "overall", f"great{i}", "!"]
        out = tail + words_ if i % 5 == 0 else words_[:-1] + [","] + tail
        sources.append(src)
        outputs.append(" ".join(out))
    p1 = {}

    def reading(text):
        return p1.setdefault(" ".join(text), float(rng.uniform()))

    mixed, plain, own = [], [], []
    for y, x in zip(outputs, sources):
        y, x = y.split(), x.split()
        own.append(min(reading(p) for p in split_parts(y)))
        content = [reading(p) for p in content_parts(y, x)]
        same = unchanged_part(y, x)
        for p in [same, *split_parts(same)] if same is not None else []:
            reading(p)
        for p in split_parts(x):  # the source's own parts: the veto's reference and the gain's R(x | x)
            reading(p)
        mixed.append(bool(content) and min(content) <= 0.5)
        plain.append(same is None and (not content or min(content) > 0.5))
    r = part_probs(outputs, sources, [1] * len(outputs), Table(p1))
    gain = style_gain(sources, outputs, [1] * len(outputs), Table(p1))
    mixed, plain, own = np.array(mixed), np.array(plain), np.array(own)
    assert mixed.sum() > 60 and plain.sum() > 60  # both kinds are drawn
    assert np.allclose(r[mixed], own[mixed] / 2) and (r[mixed] <= 0.5).all()
    assert (gain[mixed] == 0).all()
    assert np.allclose(r[plain], own[plain])
