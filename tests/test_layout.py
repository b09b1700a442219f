"""tst.layout: every artifact path of a dataset, written out by hand here; and nowhere else in the workflow.

test_no_results_path_outside_layout reads every string literal of the Snakefile, rules/*.smk, scripts/*.py
and tst/**/*.py (not tst/layout.py) with Python's tokenizer (Snakemake's syntax tokenizes as Python) and fails
on one that holds `results/` or is `results`. Deliberately skipped: comments (not string tokens) and
docstrings (a string alone as the first statement of a file, def or class), which describe the layout in
prose. Help texts and error messages are code: they name paths through tst.layout too.
"""

import io
import re
import tokenize
from pathlib import Path

import pytest

from tst import layout, names
from tst.data.prepare import corpus_outputs, expected_outputs, reference_outputs

REPO = Path(__file__).resolve().parents[1]
HOME = REPO / "tst" / "layout.py"
_FSTRING_MIDDLE = getattr(tokenize, "FSTRING_MIDDLE", None)  # Python >= 3.12 splits f-strings
_QUOTED = re.compile(r"^[A-Za-z]*('''|\"\"\"|'|\")(.*)\1$", re.DOTALL)


def workflow_files() -> list[Path]:
    files = [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]
    files += sorted((REPO / "scripts").glob("*.py")) + sorted((REPO / "tst").rglob("*.py"))
    return [f for f in files if f != HOME]


def code_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal of the code but docstrings (f-string parts included)."""
    lines, line = [], []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if line:
                lines.append(line)
            line = []
        elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            line.append(tok)
    found = []
    for i, line in enumerate(lines):
        alone = all(t.type == tokenize.STRING for t in line)
        if alone and (i == 0 or lines[i - 1][0].string in ("def", "class", "async")):
            continue  # a docstring
        for t in line:
            if t.type == tokenize.STRING:
                m = _QUOTED.match(t.string)
                found.append((t.start[0], m.group(2) if m else t.string))
            elif _FSTRING_MIDDLE is not None and t.type == _FSTRING_MIDDLE:
                found.append((t.start[0], t.string))
    return found


def results_paths(source: str) -> list[tuple[int, str]]:
    return [(n, s) for n, s in code_strings(source) if "results/" in s or s == "results"]


def test_the_check_finds_what_it_should():
    source = '''"""Module docstring: results/{dataset}/data is prose."""
# a comment: results/{dataset}
DATA = "results/{dataset}/data"


def f(ds):
    """results/<dataset> in a docstring"""
    return f"results/{ds}/scores", Path("results") / ds


rule parse:
    output:
        "results/{dataset}/attributes/{split}.{style}.parse.jsonl"
    params:
        help="see results/<dataset>",
'''
    assert [n for n, _ in results_paths(source)] == [3, 8, 8, 13, 15]


def test_no_results_path_outside_layout():
    found = []
    for path in workflow_files():
        for n, text in results_paths(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(REPO)}:{n}: {text!r}")
    assert not found, "results paths outside tst/layout.py (name them with tst.layout):\n" + "\n".join(found)


def test_the_walk_reads_the_workflow():
    files = {str(p.relative_to(REPO)) for p in workflow_files()}
    assert {"Snakefile", "rules/common.smk", "rules/data.smk", "scripts/score.py", "tst/config.py"} <= files
    assert "tst/layout.py" not in files
    # and tst/layout.py is where they are
    assert [s for _, s in results_paths(HOME.read_text(encoding="utf-8"))] == ["results"]  # RESULTS


def test_folders():
    assert layout.root("demo") == "results/demo"
    assert layout.data("demo") == "results/demo/data"
    assert layout.data("demo", "vocab.txt") == "results/demo/data/vocab.txt"
    assert layout.evaluators("demo") == "results/demo/evaluators"
    assert layout.evaluators("demo", "idf.json") == "results/demo/evaluators/idf.json"
    assert layout.attributes("yelp") == "results/yelp/attributes"
    assert layout.model("demo", "M0", 1) == "results/demo/models/M0/seed1"
    assert layout.system_folder("demo", "mit") == "results/demo/systems/mit"
    assert layout.scores("demo") == "results/demo/scores"
    assert layout.human("yelp", "correlation.csv") == "results/yelp/human/correlation.csv"
    assert layout.validity("demo", "checks.json") == "results/demo/validity/checks.json"
    assert layout.calibration("demo") == "results/demo/validity/gm_thresholds.json"
    assert layout.table("demo", "leaderboard", "csv") == "results/demo/tables/leaderboard.csv"
    assert layout.plot("demo", "trajectories", "svg") == "results/demo/plots/trajectories.svg"


def test_wildcards_are_left_open():
    assert layout.root() == "results/{dataset}"
    assert layout.data() == "results/{dataset}/data"
    assert layout.text(split="test") == "results/{dataset}/data/test.{style}.txt"
    assert layout.text(raw=True) == "results/{dataset}/data/{split}.{style}.raw.txt"
    assert layout.model() == "results/{dataset}/models/{variant}/seed{seed}"
    assert (
        layout.checkpoint(ckpt="ep2.0")
        == "results/{dataset}/models/{variant}/seed{seed}/checkpoints/ep2.0.pt"
    )
    assert layout.transfer(split="dev", ckpt="ep0.5", style="1") == (
        "results/{dataset}/models/{variant}/seed{seed}/transfers/dev.ep0.5.1.txt"
    )
    assert layout.system_output() == "results/{dataset}/systems/{system}/test.final.{style}.txt"
    assert (
        layout.system_sources(system="source")
        == "results/{dataset}/systems/source/test.final.sources.{style}.txt"
    )
    assert layout.score(system=layout.OURS, split="dev", ckpt="ep1.0", ext="tsv") == (
        "results/{dataset}/scores/{variant}.seed{seed}/dev.ep1.0.tsv"
    )
    assert layout.parse() == "results/{dataset}/attributes/{split}.{style}.parse.jsonl"
    assert layout.attribute_lists() == "results/{dataset}/attributes/{split}.{style}.attributes.jsonl"
    assert layout.calibration() == "results/{dataset}/validity/gm_thresholds.json"


def test_data_files():
    assert layout.text("demo", "train", 0) == "results/demo/data/train.0.txt"
    assert layout.text("demo", "test", "1", raw=True) == "results/demo/data/test.1.raw.txt"
    assert layout.entities("demo", "dev", 0) == "results/demo/data/dev.0.entities.jsonl"
    assert layout.references("yelp", 1) == "results/yelp/data/references.1.tsv"
    assert layout.paraphrase("yelp", 0) == "results/yelp/data/paraphrase.0.tsv"
    assert layout.data("yelp", layout.BPE_MODEL) == "results/yelp/data/bpe.model"
    assert layout.data("yelp", layout.DATA_REPORT) == "results/yelp/data/report.json"
    # what prepare_data writes (and rule prepare_data declares)
    files = expected_outputs({"styles": ["neg", "pos"], "bpe": {"enabled": True}})
    assert files[:3] == ["vocab.txt", "report.json", "bpe.model"]
    assert files[3:6] == ["train.0.txt", "train.0.entities.jsonl", "train.0.raw.txt"]
    assert sorted(files) == sorted(
        ["vocab.txt", "report.json", "bpe.model"]
        + [f"{sp}.{st}{x}" for sp in ("train", "dev", "test") for st in (0, 1) for x in (".txt", ".raw.txt")]
        + [f"{sp}.{st}.entities.jsonl" for sp in ("train", "dev", "test") for st in (0, 1)]
        + ["references.0.tsv", "references.1.tsv", "paraphrase.0.tsv", "paraphrase.1.tsv"]
        + ["corpus.json", "ner_skipped.json"]
    )
    # rule prepare_references writes the references and report.json, rule prepare_data the rest
    refs = reference_outputs({"styles": ["neg", "pos"]})
    assert sorted(refs) == ["references.0.tsv", "references.1.tsv", "report.json"]
    assert sorted(corpus_outputs({"styles": ["neg", "pos"], "bpe": {"enabled": True}}) + refs) == sorted(
        files
    )


def test_system_outputs_ours_and_external():
    assert layout.outputs("demo", "M0.seed1", "test", "ep1.0", 0) == (
        "results/demo/models/M0/seed1/transfers/test.ep1.0.0.txt"
    )
    assert layout.sources("demo", "M0.seed1", "dev", "ep1.0", 1) == "results/demo/data/dev.1.raw.txt"
    assert layout.outputs("yelp", "mit", "test", "final", 1) == "results/yelp/systems/mit/test.final.1.txt"
    assert (
        layout.sources("yelp", "mit", "test", "final", 0)
        == "results/yelp/systems/mit/test.final.sources.0.txt"
    )
    assert (
        layout.outputs("demo", "source", "test", "final", 0) == "results/demo/systems/source/test.final.0.txt"
    )
    assert layout.score("demo", "M0.seed1", "test", "ep1.0") == "results/demo/scores/M0.seed1/test.ep1.0.json"
    assert layout.score("yelp", "mit", "test", "final", "tsv") == "results/yelp/scores/mit/test.final.tsv"


def test_names_inside_a_dataset_folder():
    assert (layout.DATA, layout.EVALUATORS, layout.CALIBRATION_FILE) == (
        "data",
        "evaluators",
        "validity/gm_thresholds.json",
    )
    assert (layout.VOCAB, layout.DATA_REPORT, layout.BPE_MODEL) == ("vocab.txt", "report.json", "bpe.model")
    assert (layout.CORRELATION, layout.RATED, layout.AGGREGATE, layout.CHECKS) == (
        "correlation.csv",
        "ratings_with_metrics.tsv",
        "aggregate.json",
        "checks.json",
    )


def test_evaluator_patterns_come_from_tst_names():
    assert layout.CLASSIFIER == "style_{kind}.pt"
    assert layout.LANGUAGE_MODEL == "lm_{lm}.pt"
    assert layout.EMBEDDING == "{emb}.kv"
    assert layout.NATURALNESS == "naturalness/{system}.{kind}.{ext}"
    assert layout.OURS == "{variant}.seed{seed}"
    # each pattern gives back every file tst.names names
    assert {layout.CLASSIFIER.format(kind=k) for k in names.CLASSIFIERS} == set(names.CLASSIFIERS.values())
    assert {layout.LANGUAGE_MODEL.format(lm=k) for k in names.LANGUAGE_MODELS} == set(
        names.LANGUAGE_MODELS.values()
    )
    assert {layout.EMBEDDING.format(emb=k) for k in names.EMBEDDINGS} == set(names.EMBEDDINGS.values())
    for kind, ext in names.NATURALNESS_KINDS.items():
        assert layout.NATURALNESS.format(system="mit", kind=kind, ext=ext) == names.naturalness_file(
            "mit", kind
        )
    assert layout.OURS.format(variant="M0", seed=3) == names.system_name("M0", 3)


def test_a_family_without_one_pattern_fails():
    with pytest.raises(ValueError, match="share no one pattern"):
        layout._shared_pattern({("cnn",): "style_cnn.pt", ("lstm",): "lstm_style.pt"}, ("kind",))
    with pytest.raises(ValueError, match="once"):
        layout._shared_pattern({("a",): "a_a.pt"}, ("kind",))


def test_constraints():
    c = layout.CONSTRAINTS
    assert c["split"] == "dev|test|train"
    assert c["style"] == "0|1"
    assert c["seed"] == r"\d+"
    assert c["name"] == "[A-Za-z0-9][A-Za-z0-9_.-]*"
    assert c["classifier"] == "cnn|lstm|minilm"
    assert c["lm"] == "joint|style0|style1"
    assert c["embedding"] == "glove|word2vec|word2vec_masked"
    assert (c["naturalness_kind"], c["naturalness_ext"]) == ("lr|nn", "json|pt")
    assert re.fullmatch(c["seed"], "12") and not re.fullmatch(c["seed"], "1a")
    assert re.fullmatch(c["name"], "M0.seed1") and not re.fullmatch(c["name"], "_x")
    assert layout.SPLITS == ("train", "dev", "test") and layout.STYLES == ("0", "1")


def test_the_trainer_writes_where_the_layout_says():
    """The trainer (not importing tst.layout: its code hash is in every checkpoint) names checkpoints so;
    tests/train/test_trainer.py checks the folders and dev transfers of a real run."""
    from tst.train.checkpoint import path_of

    folder = Path(layout.model("demo", "M0", 1)) / layout.CHECKPOINTS
    assert str(path_of(folder, 1.5)) == layout.checkpoint("demo", "M0", 1, names.epoch_label(1.5))
