"""One scoring route: `tst score` normalizes text as people and LLMs write it (cased, detokenized) the way the
workflow normalizes the corpus and the published systems, says so in its JSON, and warns when an evaluator reads
many of the tokens as <unk>."""

import json

import pytest

from tst.cli import main
from tst.data.normalize import retokenize, scoring_normalizer
from tst.io import write_json, write_lines
from tst.scoring.write import UNK_WARN, coverage_warnings


@pytest.mark.parametrize(
    "tokenized",
    [
        "she said `` yes , sorry . ''",  # PTB quotes: NLTK alone would turn the closing '' into ``
        "the food is good and the best waitress is always have flamingo <UNK> .",  # a system's placeholder
        "it did n't taste watered down at all .",
        "-PERSON- was rude to us at <num> pm .",
    ],
)
def test_tokenized_text_is_left_as_it_is(tokenized):
    assert retokenize(tokenized) == tokenized.split()


def test_raw_text_is_tokenized_and_lowercased_as_the_corpus():
    norm = scoring_normalizer({"lowercase": True, "numbers": False})
    # worked by hand with the PTB rules: n't split off, final period split, quotes -> `` ''
    assert norm("It didn't taste watered down at all.") == "it did n't taste watered down at all ."
    assert norm('She said "yes, sorry."') == "she said `` yes , sorry . ''"
    assert norm("It's GOOD!") == "it 's good !"
    # a references line: each column on its own, the TAB kept
    assert norm("It's bad.\tIt's good.") == "it 's bad .\tit 's good ."
    # numbers as the dataset says
    assert (
        scoring_normalizer({"lowercase": False, "numbers": True})("Open at 10:30 Today")
        == "Open at <num> Today"
    )


def test_ner_placeholders_are_kept_as_the_corpus_writes_them():
    norm = scoring_normalizer({"lowercase": True}, placeholders=["-PERSON-", "-LOCATION-"])
    # lowercased, -PERSON- would be -person-: a word no evaluator of the corpus knows
    assert (
        norm("-PERSON- was rude to us at -LOCATION-'s bar.")
        == "-PERSON- was rude to us at -LOCATION- 's bar ."
    )
    assert norm("-person- met -Location- .") == "-PERSON- met -LOCATION- ."  # any case -> the corpus's
    assert norm("-ORG- said -lrb- hi -rrb-") == "-org- said -lrb- hi -rrb-"  # not a placeholder: lowercased
    assert scoring_normalizer({"lowercase": True})("-PERSON- left") == "-person- left"  # none given


def test_curly_quotes_and_apostrophes_read_as_the_corpus_writes_them():
    norm = scoring_normalizer({"lowercase": True})
    # by hand: ’ -> ' (n't and 's split off as PTB does), “ ” -> " (PTB: `` and '')
    assert norm("It didn’t taste “watered down” at all.") == "it did n't taste `` watered down '' at all ."
    assert norm("The chef’s ‘special’ was bad.") == norm("The chef's 'special' was bad.")
    assert norm("It didn’t taste “watered down” at all.") == norm('It didn\'t taste "watered down" at all.')


def curly_quoted(text: str) -> str:
    """`text` with its apostrophes as ’ and its double quotes as “ ” in turn (as word processors and LLMs write)."""
    parts = text.replace("'", "’").split('"')
    return "".join(p + ("“" if i % 2 == 0 else "”") for i, p in enumerate(parts[:-1])) + parts[-1]


def test_curly_quoted():
    assert curly_quoted('She said "it\'s ok" and "no".') == "She said “it’s ok” and “no”."


@pytest.mark.shared_data
def test_li_references_cased_and_detokenized_come_back_as_tokenized(shared_data):
    """Li et al.'s Yelp references: the workflow's tokenized form (PTB, lowercased) -> detokenized and capitalized
    as a person writes (NLTK's Treebank detokenizer) -> the scoring route: the same tokens on every line."""
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    from tst.data.normalize import normalize_tokens

    detok = TreebankWordDetokenizer()
    norm = scoring_normalizer({"lowercase": True})
    same = same_curly = total = 0
    for style in (0, 1):
        for line in (shared_data / "yelp" / "li" / f"reference.{style}").read_text().splitlines():
            tokenized = " ".join(normalize_tokens(line.split("\t")[1], lowercase=True, tokenize=True))
            written = detok.detokenize(tokenized.split())
            written = written[:1].upper() + written[1:]
            same += norm(written) == tokenized
            same_curly += norm(curly_quoted(written)) == tokenized
            total += 1
    assert total == 1000
    assert same == same_curly == total  # every line


def _files(d):
    write_lines(d / "test.0.txt", ["the food was bad .", "service was slow ."])
    write_lines(d / "out.0.txt", ["The food was good.", "Service wasn't slow!"])
    (d / "ds" / "evaluators").mkdir(parents=True)
    return ["--sources", str(d / "test.0.txt"), "--outputs", str(d / "out.0.txt")]


def test_score_normalizes_by_default_and_says_so(tmp_path, capsys):
    args = _files(tmp_path)
    write_json(
        tmp_path / "ds" / "data" / "report.json",
        {"normalize": {"lowercase": True, "numbers": False}, "ner": {"entities": {"-ORG-": 3}}},
    )
    main(["score", "--dataset-dir", str(tmp_path / "ds"), "--metrics", "bleu_self_corpus", *args])
    obj = json.loads(capsys.readouterr().out)
    assert obj["normalization"] == {
        "applied": True,
        "tokenize": "PTB (NLTK Treebank; tokenized text is left as it is; curly quotes read as ' and \")",
        "lowercase": True,
        "numbers": False,
        "placeholders": ["-LOCATION-", "-ORG-", "-PERSON-"],  # tst.nlp.ner's defaults and the corpus's own
        "from": "data/report.json",
    }
    # normalized: "the food was good ." vs "the food was bad ." and "service was n't slow !" vs "service was slow ."
    # multi-bleu by hand: 1-grams 4+3 / 5+5, 2-grams 2+1 / 4+4, 3-grams 1+0 / 3+3, 4-grams 0 / 2+2 -> 0
    assert obj["metrics"]["bleu_self_corpus"]["score"] == pytest.approx(0.0)


def test_no_normalize_scores_the_lines_as_given(tmp_path, capsys):
    write_lines(tmp_path / "test.0.txt", ["the food was bad ."])
    write_lines(tmp_path / "out.0.txt", ["The food was bad."])
    (tmp_path / "ds" / "evaluators").mkdir(parents=True)
    base = ["score", "--dataset-dir", str(tmp_path / "ds"), "--metrics", "bleu_self_corpus"]
    files = ["--sources", str(tmp_path / "test.0.txt"), "--outputs", str(tmp_path / "out.0.txt")]
    main([*base, *files])
    on = json.loads(capsys.readouterr().out)
    assert on["normalization"]["from"] == "default (lowercase)"  # no report.json, no --config
    assert on["metrics"]["bleu_self_corpus"]["score"] == pytest.approx(
        100.0
    )  # the same tokens once normalized
    main([*base, "--no-normalize", *files])
    off = json.loads(capsys.readouterr().out)
    assert off["normalization"] == {"applied": False, "note": "lines scored as given (--no-normalize)"}
    # as given: The / food / was / bad. against the / food / was / bad / . : 1-grams 2/4, 2-grams 1/3, 3-grams 0/2 -> 0
    assert off["metrics"]["bleu_self_corpus"]["score"] == pytest.approx(0.0)


def test_an_evaluator_reading_many_unknown_tokens_is_warned_of():
    obj = {
        "n_sentences": 10,
        "units": {
            "style_cnn.pt": {
                "units": "words",
                "n_tokens": 200,
                "n_unk": 21,
                "unk_rate": 21 / 200,
                "unk_top": [["-person-", 12], ["didn’t", 9]],
            },
            "lm_joint.pt": {"units": "words", "n_tokens": 200, "n_unk": 2, "unk_rate": 2 / 200},
        },
    }
    warnings = coverage_warnings(obj)
    assert 21 / 200 > UNK_WARN > 2 / 200
    assert len(warnings) == 1 and warnings[0].startswith(
        "10.5% of the tokens style_cnn.pt read are outside its vocabulary (<unk>; above 5%); the commonest: "
        "-person- (12), didn’t (9): "
    )
