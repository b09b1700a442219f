"""NLP backend (spaCy for real; Stanza's conversion and missing-model error) and reversible NER masking."""

from types import SimpleNamespace as NS

import pytest

from tst.nlp.backend import Doc, StanzaBackend, Token, load_backend, stanza_sentence_to_doc
from tst.nlp.ner import mask, mask_one, unmask

LABELS = {"PERSON": "-PERSON-", "GPE": "-LOCATION-", "LOC": "-LOCATION-", "FAC": "-LOCATION-"}


@pytest.fixture(scope="module")
def spacy_backend():
    return load_backend("spacy", batch_size=8)


def test_spacy_keeps_tokens_and_parses(spacy_backend):
    sents = [["john", "smith", "went", "to", "paris", "."], [], ["it", "'s", "good", "."]]
    docs = spacy_backend.annotate(sents)
    assert [d.words for d in docs] == sents  # token i of the output is token i of the input
    d = docs[0]
    assert d.ents == [(0, 2, "PERSON"), (4, 5, "GPE")]
    went = d.tokens[2]
    assert (went.lemma, went.pos, went.dep, went.head) == ("go", "VERB", "root", -1)
    assert d.tokens[1].head == 2 and d.tokens[1].dep == "nsubj"  # smith <- went
    assert d.tokens[4].head == 3 and d.tokens[4].pos == "PROPN"  # paris <- to
    assert docs[2].tokens[1].text == "'s"  # never re-tokenized


def test_spacy_components(spacy_backend):
    # the small model's ner has its own embedding layer: NER alone runs only `ner`
    assert spacy_backend.components(parse=False, ner=True) == ["ner"]
    assert spacy_backend.components(parse=True, ner=False) == [
        "tok2vec",
        "tagger",
        "parser",
        "attribute_ruler",
        "lemmatizer",
    ]
    d = spacy_backend.annotate([["mary", "johnson", "lives", "in", "boston"]], parse=False)[0]
    assert d.tokens[0].pos == "" and d.ents == [(0, 2, "PERSON"), (4, 5, "GPE")]


def test_mask_unmask_roundtrip_real_spacy(spacy_backend):
    sent = ["john", "smith", "met", "mary", "johnson", "in", "new", "york", "last", "week", "."]
    docs = spacy_backend.annotate([sent], parse=False)
    masked, ents = mask([sent], docs, LABELS)
    assert masked[0] == ["-PERSON-", "met", "-PERSON-", "in", "-LOCATION-", "last", "week", "."]
    assert ents[0] == [["-PERSON-", "john smith"], ["-PERSON-", "mary johnson"], ["-LOCATION-", "new york"]]
    assert unmask(masked[0], ents[0]) == sent


def test_unmask_extra_and_missing_placeholders():
    ents = [["-PERSON-", "john smith"], ["-LOCATION-", "paris"]]
    # a transfer that reorders types, adds one placeholder too many and drops nothing
    out = unmask(["in", "-LOCATION-", "-PERSON-", "met", "-PERSON-", "."], ents)
    assert out == ["in", "paris", "john", "smith", "met", "-PERSON-", "."]
    assert unmask(["no", "names", "here", "."], ents) == ["no", "names", "here", "."]


def test_mask_ignores_unlisted_labels():
    doc = Doc(
        [Token(w) for w in ["we", "paid", "20", "dollars", "in", "paris"]], [(2, 4, "MONEY"), (5, 6, "GPE")]
    )
    masked, ents = mask_one(["we", "paid", "20", "dollars", "in", "paris"], doc, LABELS)
    assert masked == ["we", "paid", "20", "dollars", "in", "-LOCATION-"] and ents == [["-LOCATION-", "paris"]]


def _fake_stanza_sentence():
    """`new york is big`: stanza-like objects (1-based word ids, head 0 = root, ents with tokens)."""

    def word(i, text, lemma, upos, xpos, head, deprel):
        return NS(id=i, text=text, lemma=lemma, upos=upos, xpos=xpos, head=head, deprel=deprel)

    words = [
        word(1, "new", "new", "PROPN", "NNP", 2, "compound"),
        word(2, "york", "york", "PROPN", "NNP", 4, "nsubj"),
        word(3, "is", "be", "AUX", "VBZ", 4, "cop"),
        word(4, "big", "big", "ADJ", "JJ", 0, "root"),
    ]
    tokens = [NS(id=(w.id,), text=w.text, words=[w]) for w in words]
    return NS(tokens=tokens, words=words, ents=[NS(type="GPE", tokens=tokens[0:2])])


def test_stanza_conversion():
    d = stanza_sentence_to_doc(_fake_stanza_sentence())
    assert d.words == ["new", "york", "is", "big"]
    assert [t.head for t in d.tokens] == [1, 3, 3, -1]
    assert [t.dep for t in d.tokens] == ["compound", "nsubj", "cop", "root"]
    assert d.tokens[2].lemma == "be" and d.tokens[2].tag == "VBZ" and d.ents == [(0, 2, "GPE")]


def test_stanza_missing_models_error(tmp_path):
    with pytest.raises(RuntimeError) as e:
        StanzaBackend(stanza_dir=str(tmp_path)).annotate([["a", "b"]], parse=False, ner=True)
    msg = str(e.value)
    assert "stanza.download('en')" in msg and "nlp.stanza_dir" in msg and str(tmp_path) in msg


def test_unknown_backend():
    with pytest.raises(ValueError, match="nlp.backend"):
        load_backend("nltk")
