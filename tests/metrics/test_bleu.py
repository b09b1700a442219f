"""BLEU: identical corpora, a hand-worked multi-bleu.perl example, nltk method1 sentence BLEU, real references."""

import math

import pytest

from tst.metrics.bleu import (
    corpus_bleu,
    read_references,
    ref_bleu,
    ref_bleu_where_given,
    self_bleu,
    sentence_bleu_mean,
)

HYPS = ["a b c d e", "the the the the"]
REFS = [["a b c d f g h", "a b x y"], ["the cat the mat on it"]]


def test_identical_corpora_give_100():
    lines = ["the food was great .", "i will not come back here"]
    assert self_bleu(lines, lines, "corpus").score == pytest.approx(100.0)
    assert self_bleu(lines, lines, "sentence").score == pytest.approx(100.0)
    assert self_bleu(lines, lines, "sentence").per_sentence == pytest.approx([100.0, 100.0])


def test_corpus_bleu_matches_hand_worked_multi_bleu():
    # multi-bleu.perl by hand. Sentence 1 (c=5), refs of length 7 and 4: closest is 4.
    #   1-grams a b c d match (e not): 4/5; 2-grams ab bc cd: 3/4; 3-grams abc bcd: 2/3; 4-gram abcd: 1/2
    # Sentence 2 (c=4), ref length 6: "the" clipped to its 2 reference counts: 2/4; no 2-, 3-, 4-gram: 0/3 0/2 0/1
    # Corpus: p = 6/9, 3/7, 2/5, 1/3; c = 9 < r = 4 + 6 = 10 -> BP = exp(1 - 10/9)
    r = corpus_bleu(HYPS, REFS)
    expected = 100 * math.exp(1 - 10 / 9) * (6 / 9 * 3 / 7 * 2 / 5 * 1 / 3) ** 0.25
    assert r.score == pytest.approx(expected, rel=1e-9)
    assert r.details["bp"] == pytest.approx(math.exp(1 - 10 / 9))
    assert (r.details["sys_len"], r.details["ref_len"]) == (9, 10)


def test_corpus_bleu_records_sacrebleus_own_signature():
    """The details hold the string sacreBLEU's BLEU.get_signature() gives for the same settings and references
    (a second metric object scores the same corpus here), and which its documentation spells out by hand."""
    import sacrebleu
    from sacrebleu.metrics import BLEU

    for hyps, refs, nrefs in ((HYPS, REFS, "var"), (["a b c d"], [["a b c d"]], "1")):
        theirs = BLEU(tokenize="none", force=True, lowercase=False, smooth_method="none")
        k = max(len(r) for r in refs)
        theirs.corpus_score(hyps, [[r[j] if j < len(r) else None for r in refs] for j in range(k)])
        got = corpus_bleu(hyps, refs).details["sacrebleu_signature"]
        assert got == str(theirs.get_signature())
        assert got == f"nrefs:{nrefs}|case:mixed|eff:no|tok:none|smooth:none|version:{sacrebleu.__version__}"
    assert (
        self_bleu(["a b"], ["a b"], "corpus").details["sacrebleu_signature"].startswith("nrefs:1|case:mixed|")
    )


def test_corpus_bleu_closest_reference_length_tie_takes_shorter():
    # hyp length 5, refs of length 7 and 3 are both 2 away: multi-bleu.perl takes 3 -> no brevity penalty
    r = corpus_bleu(["a b c d e"], [["a b c d e f g", "a b c"]])
    assert r.details["ref_len"] == 3 and r.details["bp"] == 1.0
    assert r.score == pytest.approx(100.0)  # every n-gram of the hypothesis is in the first reference


def test_corpus_bleu_is_zero_without_any_4gram_match_and_is_cased():
    assert corpus_bleu(["the the the the"], [["the cat the mat on it"]]).score == 0.0
    assert corpus_bleu(["The food was good"], [["the food was good"]]).score < 100.0


def test_sentence_bleu_method1_hand_case():
    # "a b" vs "a c": p1 = 1/2; p2 = 0/1, p3 and p4 have no n-grams (nltk denominator 1): method1 -> 0.1 each
    r = sentence_bleu_mean(["a b", "a b c d"], [["a c"], ["a b c d"]])
    first = 100 * (0.5 * 0.1**3) ** 0.25
    assert r.per_sentence == pytest.approx([first, 100.0])
    assert r.score == pytest.approx((first + 100.0) / 2)
    # nltk's default (no smoothing, as in the fastnlp/style-transformer evaluator) gives ~0 here
    assert sentence_bleu_mean(["a b"], [["a c"]], smoothing="none").score < 1e-6


def test_ref_bleu_multiple_references():
    r = ref_bleu(["x y z w"], [["a b c d", "x y z w"]], "sentence")
    assert r.score == pytest.approx(100.0)
    assert ref_bleu(["x y z w"], [["a b c d", "x y z w"]], "corpus").score == pytest.approx(100.0)


def test_references_matched_on_source_text_and_put_back(tmp_path):
    (tmp_path / "r.0").write_text("a b c d\ta b c d\n\nz y\tz y x w\tz\n", encoding="utf-8")
    (tmp_path / "r.1").write_text("a b c d\tq r s t\n", encoding="utf-8")
    sources = ["z y", "no reference", "a b c d"]
    refs = read_references([tmp_path / "r.0", tmp_path / "r.1"], sources)
    assert refs == [["z y x w", "z"], None, ["a b c d", "q r s t"]]  # a source listed twice gets both
    r = ref_bleu_where_given(["z y x w", "anything", "a b c d"], refs, "sentence")
    assert r.details["n_with_reference"] == 2
    assert r.per_sentence[1] is None and r.per_sentence[0] == r.per_sentence[2] == pytest.approx(100.0)
    assert r.score == pytest.approx(100.0)  # the mean over the two sentences with references
    assert ref_bleu_where_given(["x"], [None], "corpus") is None
    assert ref_bleu_where_given(["x"], None, "corpus") is None


@pytest.mark.shared_data
def test_references_of_li_yelp_match_every_test_source(shared_data, tmp_path):
    li = shared_data / "yelp" / "li"
    sources = (li / "sentiment.test.0").read_text(encoding="utf-8").splitlines()
    refs = read_references([li / "reference.0", li / "reference.1"], sources)
    assert len(refs) == 500 and all(r is not None and len(r) == 1 for r in refs)
    # Li et al.'s "human" system output is the reference itself: ref-BLEU 100
    human = [
        line.split("\t")[1] for line in (li / "outputs" / "sentiment.test.0.human").read_text().splitlines()
    ]
    assert ref_bleu(human, refs, "corpus").score == pytest.approx(100.0)


def test_style_transformer_bleu_by_hand():
    """fastnlp/style-transformer's evaluator: lowercased, word_tokenize, nltk sentence_bleu without smoothing.
    "The cat sat on the mat ." vs "the cat sat on a mat .": clipped matches 6/7, 4/6, 2/5, 1/4 for n = 1..4,
    equal lengths (BP 1): 100 (6/7 * 4/6 * 2/5 * 1/4)^(1/4) = 100 (2/35)^(1/4) = 48.892. A pair without a
    4-gram match scores 0 (no smoothing), so the mean over the two is 24.446."""
    from tst.metrics.bleu import ref_bleu, self_bleu

    r = ref_bleu(
        ["The cat sat on the mat .", "Great food !"], [["the cat sat on a mat ."], ["great food ."]], "st"
    )
    assert r.name == "bleu_ref_st" and "Style Transformer" in r.variant and "without smoothing" in r.variant
    assert r.per_sentence == pytest.approx([100 * (2 / 35) ** 0.25, 0.0], abs=1e-9)
    assert r.score == pytest.approx(100 * (2 / 35) ** 0.25 / 2, abs=1e-9)  # 24.446
    # the smoothed sentence BLEU is cased and gives the second pair a positive score: not this number
    smoothed = ref_bleu(
        ["The cat sat on the mat .", "Great food !"],
        [["the cat sat on a mat ."], ["great food ."]],
        "sentence",
    )
    assert "method1" in smoothed.variant and "Style Transformer" not in smoothed.variant
    assert smoothed.per_sentence[1] > 0 and smoothed.per_sentence[0] < r.per_sentence[0]
    assert self_bleu(["a b c d"], ["A B C D"], "st").score == pytest.approx(100.0)


def test_ref_bleu_variant_names_the_references_release():
    refs = [["a b c d"], None]
    plain = ref_bleu_where_given(["a b c d", "x"], refs, "corpus")
    named = ref_bleu_where_given(["a b c d", "x"], refs, "corpus", "owner/repo@0123abcd")
    assert named.score == plain.score == pytest.approx(100.0)  # the value does not change, only the label
    assert named.variant == plain.variant + "; against references owner/repo@0123abcd"
    assert "against references" not in plain.variant
    for kind in ("sentence", "st"):
        assert ref_bleu_where_given(["a b c d"], [["a b c d"]], kind, "r@1").variant.endswith(
            "; against references r@1"
        )


@pytest.mark.parametrize("smoothing", ["method1", "none"])
def test_sentence_bleu4_gives_nltks_sentence_bleu_bit_for_bit(smoothing):
    """tst.metrics.bleu.sentence_bleu4 against nltk's own sentence_bleu (SmoothingFunction().method1, or its default
    method0) on 4,000 seeded pairs: 0-20 words from a 6-word vocabulary (so many partial n-gram matches, repeats to
    clip and zero-match orders), 1-3 references, hypotheses longer and shorter than every reference, empty ones too."""
    import random
    import warnings

    from tst.imports import load_nltk
    from tst.metrics.bleu import sentence_bleu4

    load_nltk()
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    fn = SmoothingFunction().method1 if smoothing == "method1" else SmoothingFunction().method0
    rng = random.Random(0)

    def words():
        return tuple(rng.choice("abcdef") for _ in range(rng.randint(0, 20)))

    with warnings.catch_warnings():  # nltk warns for every sentence without a 4-gram match
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(4000):  # empty hypotheses and references among them (nltk: 0)
            hyp, refs = words(), [words() for _ in range(rng.randint(1, 3))]
            expected = sentence_bleu([list(r) for r in refs], list(hyp), smoothing_function=fn)
            assert sentence_bleu4(refs, hyp, smoothing) == float(expected), (hyp, refs)
