"""Empty outputs and varying reference counts: corpus BLEU against clipped n-gram counts done by hand, and
no metric (Sim, CP, WMD, PP, sentence BLEU) rewards a system for emitting an empty line."""

import math
from collections import Counter
from typing import ClassVar

import numpy as np
import pytest
from conftest import Emb

from tst.metrics.bleu import (
    corpus_bleu,
    read_references,
    ref_bleu_where_given,
    sentence_bleu_mean,
    style_transformer_bleu,
)
from tst.metrics.content_preservation import content_preservation
from tst.metrics.perplexity import perplexity
from tst.metrics.sim import sim
from tst.metrics.wmd import wmd

IDF = {"idf": {"a": 1.0, "b": 3.0}, "n_docs": 10, "default": 2.0}

# --- corpus BLEU: 3 sentences, 2 / 1 / 2 references, the 1-reference sentence's hypothesis empty ---------
HYPS = ["a b c d", "", "e e f g h"]
REFS = [["x a b c d y", "a b c d"], ["p q r"], ["e f g h j k", "e f g h"]]
# clipped matches / hypothesis n-grams, n = 1..4 (the empty hypothesis has no n-grams):
#   s1 "a b c d" = 2nd reference:            4/4, 3/3, 2/2, 1/1
#   s3 "e e f g h" ("e" clipped to 1):       4/5 (e f g h), 3/4 (e f, f g, g h), 2/3, 1/2
# p = 8/9, 6/7, 4/5, 2/3; c = 4 + 0 + 5 = 9
P = [8 / 9, 6 / 7, 4 / 5, 2 / 3]
# closest reference length per hypothesis (ties -> the shorter): s1 4 (refs 6, 4), s2 3 (its only reference),
# s3 4 (refs 6 and 4 both 1 away from 5) -> r = 11 > c, BP = exp(1 - 11/9)
BLEU_HAND = 100 * math.exp(1 - 11 / 9) * math.exp(sum(math.log(p) for p in P) / 4)
# the bug: s2's missing 2nd reference padded with "" -> its closest reference length is 0, r = 8 < c, BP = 1
BLEU_PADDED = 100 * math.exp(sum(math.log(p) for p in P) / 4)


def _clipped(hyp, refs, n):
    h = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
    best = Counter()
    for r in refs:
        best |= Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1))
    return sum(min(c, best[g]) for g, c in h.items()), sum(h.values())


def test_hand_counts_are_what_the_comments_say():
    # the stated p_n recomputed from the n-gram definition, so the hand numbers are not copied from the code
    for n, p in zip(range(1, 5), P):
        m = t = 0
        for hyp, refs in zip(HYPS, REFS):
            a, b = _clipped(hyp.split(), [r.split() for r in refs], n)
            m, t = m + a, t + b
        assert m / t == pytest.approx(p)


def test_corpus_bleu_varying_reference_counts_and_empty_hypothesis():
    r = corpus_bleu(HYPS, REFS)
    assert r.score == pytest.approx(BLEU_HAND, abs=1e-6)  # 63.93
    assert r.details["sys_len"] == 9 and r.details["ref_len"] == 11 and r.details["max_refs"] == 2
    assert r.details["empty_hypotheses"] == 1 and "empty_hypotheses" in r.variant
    assert BLEU_PADDED - BLEU_HAND > 15  # 79.84 vs 63.93: the padding bug would show
    assert r.score != pytest.approx(BLEU_PADDED, abs=1e-3)
    # what padding with "" gives, through the same code: the value the test must not accept
    padded = corpus_bleu(HYPS, [refs + [""] * (2 - len(refs)) for refs in REFS])
    assert padded.score == pytest.approx(BLEU_PADDED, abs=1e-6)


def test_ref_bleu_where_given_from_reference_files(tmp_path):
    # two reference files (as DualRL's several and Li's one): s2 is only in the first; s4 has none
    (tmp_path / "r0.tsv").write_text("s1\tx a b c d y\ns2\tp q r\ns3\te f g h j k\n")
    (tmp_path / "r1.tsv").write_text("s1\ta b c d\ns3\te f g h\n")
    sources = ["s1", "s2", "s3", "s4"]
    refs = read_references(
        [tmp_path / "r0.tsv", tmp_path / "r1.tsv"], sources, read=lambda p: p.read_text().splitlines()
    )
    assert refs == REFS + [None]
    r = ref_bleu_where_given(HYPS + ["zz"], refs)
    assert r.details["n_with_reference"] == 3
    assert r.score == pytest.approx(BLEU_HAND, abs=1e-6)


# --- empty outputs: hand values, and an empty line never improves the corpus score --------------------


def _never_better(score_fn, sources, outputs, higher_is_better):
    base = score_fn(sources, outputs)
    for i, o in enumerate(outputs):
        if not o.split():
            continue
        emptied = score_fn(sources, outputs[:i] + [""] + outputs[i + 1 :])
        if higher_is_better:
            assert emptied <= base + 1e-12, (i, base, emptied)
        else:
            assert emptied >= base - 1e-12, (i, base, emptied)


def test_sim_empty_output_counts_as_minus_one():
    e = Emb({"a": [1, 0], "b": [0, 1], "c": [-1, 1]})
    # cos(a, a) = 1; cos([1,0], [-1,1]) = -1/sqrt2; empty output -> -1; source "zzz" has no embedded token
    # -> undefined even with an empty output; output "zzz" (non-empty, nothing embedded) -> -1 as well
    r = sim(["a", "a", "b", "zzz", "a"], ["a", "c", "", "", "zzz"], e, IDF)
    assert r.per_sentence == pytest.approx([1, -1 / math.sqrt(2), -1, None, -1])
    assert r.score == pytest.approx((1 - 1 / math.sqrt(2) - 1 - 1) / 4)
    assert r.details["n_undefined"] == 1
    assert r.details["n_empty"] == 2 and r.details["n_no_usable_words"] == 1
    assert "no usable word" in r.variant and "-1" in r.variant


def test_sim_worst_20_percent_replaced_by_an_unknown_token_lowers_the_mean():
    # the attack on the mean: 5 outputs, the worst one (cos -1/sqrt2) replaced by one unknown token "zzz"
    e = Emb({"a": [1, 0], "b": [0, 1], "c": [-1, 1]})
    src, out = ["a", "a", "b", "a b", "b"], ["a", "c", "b", "a b", "a b"]
    before = sim(src, out, e, IDF).score  # (1 - 1/sqrt2 + 1 + 1 + cos(b, (a + 3b)/4)) / 5
    v = (1 * 1 + 3 * 0, 1 * 0 + 3 * 1)  # idf a 1, b 3 -> (1, 3) / 4, cos with b = 3 / sqrt10
    assert before == pytest.approx((3 - 1 / math.sqrt(2) + v[1] / math.sqrt(10)) / 5)
    after = sim(src, ["a", "zzz", "b", "a b", "a b"], e, IDF).score
    assert after == pytest.approx((3 - 1 + 3 / math.sqrt(10)) / 5) and after < before


def test_sim_empty_line_never_raises_the_score():
    e = Emb({"a": [1, 0], "b": [0, 1], "c": [-1, 1]})
    # pair 1 has a negative cosine: counting an empty output as 0 (or leaving it out) would raise the mean
    _never_better(lambda s, o: sim(s, o, e, IDF).score, ["a", "a", "a b"], ["a", "c", "b"], True)


def test_cp_empty_output_counts_as_minus_one():
    e = Emb({"a": [1, 2], "b": [3, 0], "c": [0, 1], "m": [-1, 0], "good": [9, 9]})
    # "a b" vs "c": (1,0,2,1,3,2).(0,1,0,1,0,1) = 3 / (sqrt19 sqrt3); "a" vs "m": -3 / (sqrt15 sqrt3) = -1/sqrt5;
    # empty -> -1; "good" is filtered -> nothing left of a non-empty output (all lexicon) -> -1 too
    r = content_preservation(["a b", "a", "a b", "a"], ["c", "m", "", "good"], e, style_words={"good"})
    assert r.per_sentence == pytest.approx([3 / math.sqrt(57), -1 / math.sqrt(5), -1, -1])
    assert r.score == pytest.approx((3 / math.sqrt(57) - 1 / math.sqrt(5) - 2) / 4)
    assert r.details["n_undefined"] == 0
    assert r.details["n_empty"] == 1 and r.details["n_no_usable_words"] == 1
    assert "no usable word" in r.variant


def test_cp_empty_line_never_raises_the_score():
    e = Emb({"a": [1, 2], "b": [3, 0], "c": [0, 1], "m": [-1, 0]})
    _never_better(
        lambda s, o: content_preservation(s, o, e).score, ["a b", "a", "a b"], ["c", "m", "a b"], True
    )


def test_wmd_empty_output_counts_as_two():
    e = Emb({"a": [1, 0], "b": [0, 1], "c": [-1, 0]})
    # unit vectors: WMD(a, b) = sqrt2; WMD(a b, a) = half the mass moves b -> a = sqrt2 / 2; empty -> 2;
    # "zzz" output (non-empty, nothing embedded) -> 2 as well; "zzz" source -> undefined
    r = wmd(["a", "a b", "a", "a", "zzz"], ["b", "a", "", "zzz", ""], e, mode="unmasked")
    assert r.per_sentence == pytest.approx([math.sqrt(2), math.sqrt(2) / 2, 2, 2, None])
    assert r.score == pytest.approx((math.sqrt(2) + math.sqrt(2) / 2 + 4) / 4)
    assert r.details["n_undefined"] == 1
    assert r.details["n_empty"] == 2 and r.details["n_no_usable_words"] == 1
    assert "WMD 2" in r.variant and "no usable word" in r.variant


def test_wmd_all_lexicon_output_counts_as_two_when_removed():
    e = Emb({"a": [1, 0], "b": [0, 1], "good": [1, 1]})
    # removed mode: output "good good" has nothing left -> 2; "a" vs "b" -> sqrt2
    r = wmd(["a", "a"], ["b", "good good"], e, style_words={"good"}, mode="removed")
    assert r.per_sentence == pytest.approx([math.sqrt(2), 2])
    assert r.score == pytest.approx((math.sqrt(2) + 2) / 2) and r.details["n_no_usable_words"] == 1


@pytest.mark.parametrize("mode", ["unmasked", "masked", "removed"])
def test_wmd_empty_line_never_lowers_the_score(mode):
    e = Emb({"a": [1, 0], "b": [0, 1], "c": [-1, 0], "good": [1, 1], "<style>": [1, 1]})
    _never_better(
        lambda s, o: wmd(s, o, e, style_words={"good"}, mode=mode).score,
        ["a", "a b", "a good", "b"],
        ["c", "a", "a", "b"],
        False,
    )


BIGRAM = {
    "<bos>": {"a": 3, "b": 2, "<eos>": 1},
    "a": {"a": 1, "b": 3, "<eos>": 2},
    "b": {"a": 2, "b": 1, "<eos>": 3},
}


class BigramLM:
    """Add-one bigram LM over {a, b, <eos>} from "a b", "a b", "b a" (no empty sentence, as a real LM's data):
    P(.|<bos>) = a 3/6, b 2/6, <eos> 1/6; P(.|a) = a 1/6, b 3/6, <eos> 2/6; P(.|b) = a 2/6, b 1/6, <eos> 3/6."""

    def token_nll(self, sentences):
        return [
            np.array([-math.log(BIGRAM[p][w] / 6) for p, w in zip(["<bos>"] + s, s + ["<eos>"])])
            for s in sentences
        ]


def test_pp_empty_output_is_one_eos_token():
    # "a b": 1/2 1/2 1/2 -> 3 log 2; "": <eos> after <bos> -> log 6, one token; "a": 1/2, 2/6 -> log 2 + log 3
    r = perplexity(["a b", "", "a"], BigramLM(), count_eos=True)
    assert r.details["n_tokens"] == 3 + 1 + 2 and r.details["n_empty"] == 1
    assert r.per_sentence[1] == pytest.approx(6)
    assert r.score == pytest.approx((8 * 6 * 6) ** (1 / 6))
    assert "empty output" in r.variant
    # <eos> not counted (default): "a b" 2 log 2 over 2 words, "a" log 2; "" -> L = 2 tokens (longest output)
    # at m = log 6 (the largest NLL: its own <eos>) -> exp((3 log 2 + 2 log 6) / 5) = 288 ** (1/5)
    d = perplexity(["a b", "", "a"], BigramLM())
    assert d.details["n_tokens"] == 2 + 2 + 1 and d.details["n_empty"] == 1
    assert d.per_sentence == pytest.approx([2, 6, 2])
    assert d.score == pytest.approx(288 ** (1 / 5))
    # the rule without it (one <eos> token for "") would give (8 * 6) ** (1/4) = 2.63 here, and emptying "b b"
    # in ["a b", "b b", "a"] (PP 144 ** (1/5) = 2.70) would then lower PP: the next test would fail


def test_pp_empty_line_never_lowers_pp_under_an_lm_of_non_empty_text():
    # "a b" 3 log 2, "b b" log 3 + log 6 + log 2, "a" log 2 + log 3: PP = (8 * 36 * 6) ** (1/8) = 1728 ** (1/8)
    outputs = ["a b", "b b", "a"]
    assert perplexity(outputs, BigramLM(), count_eos=True).score == pytest.approx(1728 ** (1 / 8))
    _never_better(lambda s, o: perplexity(o, BigramLM(), count_eos=True).score, None, outputs, False)
    # <eos> not counted: "a b" 2 log 2, "b b" log 3 + log 6, "a" log 2 -> PP = (4 * 18 * 2) ** (1/5)
    assert perplexity(outputs, BigramLM()).score == pytest.approx(144 ** (1 / 5))
    _never_better(lambda s, o: perplexity(o, BigramLM()).score, None, outputs, False)


@pytest.mark.parametrize("smoothing", ["method1", "none"])
def test_sentence_bleu_empty_output_is_zero_and_never_helps(smoothing):
    refs = [["a b c d"], ["e f g h"], ["x y z w"]]
    outs = ["a b c d", "e f g", "q"]
    r = sentence_bleu_mean(outs, refs, smoothing=smoothing)
    assert r.per_sentence[0] == pytest.approx(100)  # identical to its reference
    emptied = sentence_bleu_mean(["", "e f g", "q"], refs, smoothing=smoothing)
    assert emptied.per_sentence[0] == 0.0
    _never_better(lambda s, o: sentence_bleu_mean(o, refs, smoothing=smoothing).score, None, outs, True)


def test_style_transformer_bleu_empty_output_is_zero_and_never_helps():
    refs = [["a b c d"], ["e f g h"], ["x y z w"]]
    outs = ["A b c d", "e f g", "q"]  # the evaluator lowercases: "A b c d" matches its reference, 100
    r = style_transformer_bleu(outs, refs, "bleu_ref_st")
    assert r.per_sentence[0] == pytest.approx(100)
    assert style_transformer_bleu([""] + outs[1:], refs, "bleu_ref_st").per_sentence[0] == 0.0
    _never_better(lambda s, o: style_transformer_bleu(o, refs, "bleu_ref_st").score, None, outs, True)


class _Clf:
    """P(style 0, style 1) by sentence; the empty sentence is judged a confident style 1 (target of output 1)."""

    TABLE: ClassVar[dict] = {"good": [0.1, 0.9], "bad": [0.8, 0.2], "": [0.0, 1.0], "src": [0.7, 0.3]}

    def predict_proba(self, sentences):
        return np.array([self.TABLE[" ".join(s)] for s in sentences])


def test_empty_output_is_a_failed_transfer_in_acc_acc_prob_and_sti():
    from tst.metrics.acc import accuracy, target_probability
    from tst.metrics.sti import sti

    outs, targets = ["good", "bad", ""], [1, 0, 1]
    # the classifier gives "" P(target 1) = 0.9... 1.0; counted as a failure: Acc 2/3 not 3/3
    r = accuracy(outs, targets, _Clf())
    assert r.per_sentence == [1.0, 1.0, 0.0] and r.score == pytest.approx(2 / 3) and r.details["n_empty"] == 1
    p = target_probability(outs, targets, _Clf())
    assert p.per_sentence == pytest.approx([0.9, 0.8, 0.0]) and "empty output" in p.variant
    # STI: source "src" (P(1) = 0.3); "good" -> +0.6; "bad" target 0: 0.7 -> 0.8: +0.1; "" -> all on style 0:
    # -|0 - 0.3| = -0.3 (the lowest STI for that source) instead of +0.7
    s = sti(["src"] * 3, outs, targets, _Clf())
    assert s.per_sentence == pytest.approx([0.6, 0.1, -0.3]) and s.score == pytest.approx(0.4 / 3)


def test_empty_output_is_never_judged_human():
    from tst.metrics.naturalness import naturalness

    class Nat:
        def prob_human(self, sentences):
            return [1.0 if not s else 0.4 for s in sentences]  # the classifier finds "" most human

    r = naturalness(["a b", ""], Nat())
    assert r.per_sentence == pytest.approx([0.4, 0.0]) and r.score == pytest.approx(0.2)
    assert r.details["n_empty"] == 1 and r.details["share_judged_human"] == 0.0


def test_distinct_share_and_top_level_counts():
    from tst.metrics.distinct import distinct
    from tst.scoring.compute import Scores
    from tst.scoring.write import output_counts

    d = distinct(["a b", "a  b", "c", ""])  # "a b" twice (spacing aside), "c", "": 3 distinct of 4
    assert d.score == pytest.approx(3 / 4) and d.details["n_distinct"] == 3
    e = Emb({"a": [1, 0], "b": [0, 1]})
    scores = Scores()
    scores["sim"] = sim(["a", "a", "b"], ["a", "zzz", ""], e, IDF)
    scores["wmd_unmasked"] = wmd(["a", "a", "b"], ["a", "zzz", ""], e, mode="unmasked")
    scores.n_empty = (
        1  # score_system counts it from the outputs (test_bad_input: control lines read as empty)
    )
    assert output_counts(scores) == {
        "n_empty": 1,
        "n_no_usable_words": {"sim": 1, "wmd_unmasked": 1},
    }
