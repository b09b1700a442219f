"""The score request: built once, frozen, checked once; tst score and the workflow score the same request alike."""

import argparse
import dataclasses

import pytest

from tst.io import write_lines
from tst.metrics.base import ScoreOptions
from tst.scoring.request import RequestError, ScoreRequest


def test_a_request_is_frozen_and_holds_its_values_in_frozen_form(tmp_path):
    calibration = {"t": [0.02], "keys": ["joint"], "from": ["fixed_target"], "rule": "r"}
    request = ScoreRequest(
        [tmp_path / "s.0"],
        [tmp_path / "o.0"],
        [0],
        meta={"system": "x"},
        calibration=calibration,
        options={"cp_seed": 7},
        only=["gm"],
        gm_t=[63, 71, 97, 37],
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.max_words = 3
    with pytest.raises(TypeError):  # a read-only view: the caller's dict cannot be changed through it
        request.calibration["t"] = [0.5]
    calibration["t"] = [0.9]  # nor does changing the caller's dict change the request
    assert request.calibration["t"] == [0.02]
    assert request.sources == (str(tmp_path / "s.0"),) and request.source_styles == (0,)
    assert isinstance(request.options, ScoreOptions) and request.options.cp_seed == 7
    assert request.gm_t == (63.0, 71.0, 97.0, 37.0)
    # the GM asked for brings the factors it is derived from (tst.metrics.registry), and nothing else
    from tst.metrics.registry import METRICS

    assert request.wanted() == {"gm", *METRICS["gm"].derived_from}


@pytest.mark.parametrize(
    "change, says, code",
    [
        (
            {"outputs": ["a.0", "b.1"]},
            "1 --sources files but 2 --outputs files: give one output per source",
            2,
        ),
        ({"source_styles": [0, 1]}, "2 --source-styles for 1 --sources files: give one per source", 2),
        ({"lists_text": ["t.0"]}, "--lists-text given without --lists", 2),
        ({"lists": ["l.0", "l.1"]}, "2 --lists files for 1 --sources files", 2),
        ({"only": ["acc", "nope"]}, "unknown metric", 2),
        ({"source_styles": [3]}, "source style of s.0 must be 0 or 1, not 3", 1),
    ],
)
def test_a_request_that_cannot_be_scored_is_refused_when_built(change, says, code):
    fields = {"sources": ["s.0"], "outputs": ["o.0"], "source_styles": [0], "meta": {}, **change}
    with pytest.raises(RequestError, match=says) as e:
        ScoreRequest(**fields)
    assert e.value.code == code


def _args(tmp_path, **over):
    """tst score's parsed arguments, as its parser gives them."""
    from tst.cli import build_parser

    argv = ["score", "--dataset-dir", str(tmp_path / "toy"), "--sources", str(tmp_path / "test.0.txt")]
    argv += ["--outputs", str(tmp_path / "out.0.txt"), "--metrics", "bleu_self_corpus"]
    args = build_parser().parse_args(argv)
    return argparse.Namespace(**{**vars(args), **over})


def test_the_command_line_request_resolves_every_default_once(tmp_path):
    """No --config: the word limit is 4 x the schema's length.max_words (15), the bootstrap tst.bootstrap's
    defaults, the normalization the schema's default block, the GM thresholds config.yaml's score.gm_t."""
    from tst.bootstrap import DEFAULTS
    from tst.defaults import default
    from tst.scoring.arguments import from_command_line

    write_lines(tmp_path / "test.0.txt", ["a b"])
    write_lines(tmp_path / "out.0.txt", ["a c"])
    request = from_command_line(_args(tmp_path), tmp_path / "toy")
    assert request.max_words == 4 * 15
    assert dict(request.ci) == DEFAULTS
    assert dict(request.normalize)["normalize"] == {"lowercase": True, "numbers": False, "tokenize": False}
    assert request.gm_t == tuple(float(t) for t in default("score", "gm_t"))
    assert request.only == {"bleu_self_corpus"} and request.meta["system"] == "unnamed"
    assert request.evaluators == tmp_path / "toy" / "evaluators" and request.bpe is None


def test_the_command_line_request_reads_its_config_files_once(tmp_path, monkeypatch):
    """--config is read (and checked against the schema) once per request, however many defaults it gives."""
    import yaml

    import tst.config_files
    from tst.scoring.arguments import from_command_line

    write_lines(tmp_path / "test.0.txt", ["a b"])
    write_lines(tmp_path / "out.0.txt", ["a c"])
    cfg = tmp_path / "cfg.yaml"
    toy = {"styles": ["neg", "pos"], "source": {"kind": "demo"}, "length": {"max_words": 3}}
    cfg.write_text(yaml.safe_dump({"datasets": {"toy": toy}, "score": {"bootstrap": {"seed": 9}}}))
    reads, real = [], tst.config_files.read_configs
    monkeypatch.setattr(tst.config_files, "read_configs", lambda paths: reads.append(paths) or real(paths))
    request = from_command_line(_args(tmp_path, config=[str(cfg)]), tmp_path / "toy")
    assert len(reads) == 1
    # each default the config gives reached the request: 4 x length.max_words, score.bootstrap.seed, --config
    assert (request.max_words, request.ci["seed"], request.normalize["from"]) == (12, 9, "--config")


def test_with_config_each_option_not_given_is_the_workflows_for_the_dataset(tmp_path):
    """--config: the scoring options are those the workflow's score rules take for the dataset
    (tst.stages.score_options: its own cp_lexicon over score.cp_lexicon, evaluators.precision, score.*), each
    flag given on the command line over them; the sources and references NER-masked when its ner block is on.
    Without --config: the defaults, no masking."""
    import yaml

    from tst.metrics.registry import DEFAULT_OPTIONS
    from tst.scoring.arguments import from_command_line

    write_lines(tmp_path / "test.0.txt", ["a b"])
    write_lines(tmp_path / "out.0.txt", ["a c"])
    toy = {
        "styles": ["neg", "pos"],
        "source": {"kind": "demo"},
        "cp_lexicon": "none",
        "ner": {"enabled": True, "labels": {"PERSON": "-PER-"}},
    }
    config = {
        "datasets": {"toy": toy},
        "score": {"cp_lexicon": "style_lexicon", "cp_seed": 5, "pp_count_eos": True},
        "evaluators": {"precision": "bf16"},
        "nlp": {"batch_size": 7},
    }
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(config))
    request = from_command_line(_args(tmp_path, config=[str(cfg)]), tmp_path / "toy")
    o = request.options
    assert (o.cp_lexicon, o.cp_seed, o.pp_count_eos, o.precision) == ("none", 5, True, "bf16")
    assert o.sbert == DEFAULT_OPTIONS["sbert"]  # the config does not set it: the default
    assert dict(request.ner) == {"labels": {"PERSON": "-PER-"}, "nlp": {"batch_size": 7}}
    given = _args(tmp_path, config=[str(cfg)], cp_lexicon="vader", precision="fp32", pp_count_eos=False)
    o = from_command_line(given, tmp_path / "toy").options
    assert (o.cp_lexicon, o.cp_seed, o.pp_count_eos, o.precision) == ("vader", 5, False, "fp32")
    assert (
        from_command_line(_args(tmp_path, config=[str(cfg)], normalize=False), tmp_path / "toy").ner is None
    )
    toy["ner"]["enabled"] = False
    cfg.write_text(yaml.safe_dump(config))
    assert from_command_line(_args(tmp_path, config=[str(cfg)]), tmp_path / "toy").ner is None
    plain = from_command_line(_args(tmp_path), tmp_path / "toy")
    assert plain.ner is None and plain.options == ScoreOptions.of(None)
