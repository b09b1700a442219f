"""chrF (tst.metrics.chrf): character n-gram precision and recall worked out by hand, sacreBLEU's corpus chrF
on a few lines, and the registry rows (off by default, scored when named)."""

import pytest
import sacrebleu

from tst.metrics.chrf import corpus_chrf, ref_chrf_where_given, self_chrf
from tst.metrics.registry import METRICS, scored_keys
from tst.scoring.compute import score_system


def f2(p, r):
    """Popović 2015 eq. 1 with beta = 2, x 100."""
    return 100 * 5 * p * r / (4 * p + r)


def test_chrf_by_hand():
    # "the cat" vs "the cats", spaces removed: "thecat" (6 characters) vs "thecats" (7). Order n: the output
    # has 7 - n n-grams, all in the reference, which has 8 - n: P_n = 1, R_n = (7 - n) / (8 - n).
    # R = (6/7 + 5/6 + 4/5 + 3/4 + 2/3 + 1/2) / 6 = (1851/420) / 6 = 617/840; chrF2 = 100 * 5R / (4 + R)
    r = sum((7 - n) / (8 - n) for n in range(1, 7)) / 6
    assert r == pytest.approx(617 / 840)
    assert corpus_chrf(["the cat"], [["the cats"]]).score == pytest.approx(100 * 3085 / 3977, rel=1e-12)
    # "a b" vs "a": order 1 has P = 1/2, R = 1; the reference has no 2-gram, so the orders 2..6 are left out
    # (sacreBLEU's effective order): chrF2 = 100 * 5 * 1/2 / (4 * 1/2 + 1) = 250/3
    assert corpus_chrf(["a b"], [["a"]]).score == pytest.approx(250 / 3, rel=1e-12)


def test_corpus_chrf_sums_the_counts_over_sentences():
    # Both lines: order 1 counts 6 + 2 output and 7 + 1 reference characters, 6 + 1 matched (P = R = 7/8);
    # orders 2..6 only the first line's ("a b"'s 2-gram has no reference 2-gram to be counted against).
    # P = (7/8 + 5) / 6 = 47/48; R = (7/8 + 5/6 + 4/5 + 3/4 + 2/3 + 1/2) / 6 = 59/80. Not the mean of the
    # two sentence scores (77.57 and 83.33).
    r = corpus_chrf(["the cat", "a b"], [["the cats"], ["a"]])
    assert r.score == pytest.approx(f2(47 / 48, 59 / 80), rel=1e-12)
    assert r.score == pytest.approx(100 * 13865 / 17872, rel=1e-12)
    assert r.per_sentence == [] and r.details == {"n": 2, "max_refs": 1}


def test_chrf_equals_sacrebleu_corpus_chrf():
    outputs = ["the food was great .", "i will not come back here", "staff were rude", ""]
    references = [
        ["the food was awful ."],
        ["i will come back here", "i will come back"],
        ["the staff were so friendly"],
        ["it was fine"],
    ]
    streams = [[r[0] for r in references], [r[1] if len(r) > 1 else None for r in references]]
    expected = sacrebleu.corpus_chrf(outputs, streams).score
    assert corpus_chrf(outputs, references).score == pytest.approx(expected, rel=1e-12)
    assert corpus_chrf([o.split() for o in outputs], references).score == pytest.approx(expected, rel=1e-12)
    sources = [r[0] for r in references]
    assert self_chrf(sources, outputs).score == pytest.approx(
        sacrebleu.corpus_chrf(outputs, [sources]).score, rel=1e-12
    )
    assert self_chrf(outputs[:3], outputs[:3]).score == pytest.approx(100.0)


def test_ref_chrf_leaves_out_sentences_without_references():
    outputs = ["the cat", "dog", "a b"]
    r = ref_chrf_where_given(outputs, [["the cats"], None, ["a"]], release="x/y@1")
    assert r.score == pytest.approx(100 * 13865 / 17872, rel=1e-12)
    assert r.details["n_with_reference"] == 2 and r.variant.endswith("against references x/y@1")
    assert ref_chrf_where_given(outputs, [None, [], None]) is None
    with pytest.raises(ValueError):
        corpus_chrf(["a"], [[]])


def test_chrf_is_off_by_default_and_scored_when_named(tmp_path):
    assert [METRICS[k].default for k in ("chrf_self", "chrf_ref")] == [False, False]
    assert not {"chrf_self", "chrf_ref"} & set(scored_keys())
    assert scored_keys({"extra_metrics": ["chrf_ref", "chrf_self"]})[-2:] == ["chrf_self", "chrf_ref"]
    sources, outputs, styles = ["the cats", "a"], ["the cat", "a b"], [0, 1]
    refs = [["the cats"], ["a"]]
    only = {"bleu_self_corpus", "chrf_self", "chrf_ref"}
    s = score_system(sources, outputs, styles, tmp_path, references=refs, only=only)
    assert list(s) == ["bleu_self_corpus", "chrf_self", "chrf_ref"]  # registry order: chrF last
    assert s["chrf_self"].score == s["chrf_ref"].score == pytest.approx(100 * 13865 / 17872, rel=1e-12)
    assert score_system(sources, outputs, styles, tmp_path, only=only).skipped == {
        "chrf_ref": "no human references given"
    }
