"""The Python API (tst.__all__): its public names, kept across patch releases; `import tst` stays light; and
tst.score_texts gives `tst score`'s numbers, JSON and signatures for the same texts (on the suite's shared tiny
run, tests/conftest.py finished_run)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import tst
from tst import layout, stages

# The public names: removing or renaming one is a breaking change, not for a patch release.
PUBLIC = ["ScoreResult", "__version__", "score_texts"]
RESULT_FIELDS = ["scores", "signature", "signatures", "skipped", "warnings", "json"]
SCORE_TEXTS_PARAMETERS = [
    "sources",
    "outputs",
    "styles",
    "dataset_dir",
    "metrics",
    "references",
    "lists",
    "config",
    "dataset",
    "system",
    "split",
    "checkpoint",
    "precision",
    "cp_lexicon",
    "sbert",
    "normalize",
    "ci",
    "ci_resamples",
    "ci_seed",
    "gm_t",
    "gm_calibration",
    "max_words",
    "evaluators_dir",
]


def test_the_public_names_are_listed_in_one_place_and_resolve():
    import dataclasses
    import inspect

    assert tst.__all__ == PUBLIC
    assert all(hasattr(tst, name) for name in PUBLIC) and set(PUBLIC) <= set(dir(tst))
    from tst import ScoreResult, score_texts

    assert score_texts is tst.score_texts and ScoreResult is tst.ScoreResult
    assert list(inspect.signature(score_texts).parameters) == SCORE_TEXTS_PARAMETERS
    assert [f.name for f in dataclasses.fields(ScoreResult)] == RESULT_FIELDS
    with pytest.raises(AttributeError, match="no attribute 'score_text'"):
        tst.score_text  # noqa: B018 (a name that is not public raises as usual)


def test_import_tst_and_its_api_names_load_no_torch():
    code = (
        "import sys, tst; tst.score_texts; tst.ScoreResult; "
        "print(sorted(m for m in ('torch', 'numpy', 'scipy', 'sklearn', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_mistakes_raise_input_errors_naming_them(tmp_path):
    from tst.io import InputError

    with pytest.raises(InputError, match="2 sources for 1 outputs"):
        tst.score_texts(["a", "b"], ["c"], 0, tmp_path)
    with pytest.raises(InputError, match="0 or 1, not 2"):
        tst.score_texts(["a"], ["c"], [2], tmp_path)
    with pytest.raises(InputError, match="line break"):
        tst.score_texts(["a"], ["c\nd"], 0, tmp_path, metrics=["bleu_self_corpus"])
    with pytest.raises(InputError, match="need evaluators"):  # tst score's own check (exit 2 there)
        tst.score_texts(["a"], ["c"], 0, tmp_path / "nothing", metrics=["acc"])


def test_score_texts_keeps_the_order_of_interleaved_styles(tmp_path):
    """Sentences of both styles in any order score as the same sentences grouped by style, sentence by sentence
    (the per-sentence values follow the order given), with the evaluator-free metrics of an empty folder."""
    (tmp_path / "ev").mkdir()
    sources = ["the food was bad", "the staff was nice", "we loved it", "it was cold"]
    outputs = ["the food was good", "the staff was rude", "we hated it", "it was warm"]
    styles = [0, 1, 1, 0]
    keys = ["bleu_self_sentence", "bleu_self_corpus"]
    mixed = tst.score_texts(sources, outputs, styles, tmp_path, metrics=keys, evaluators_dir=tmp_path / "ev")
    order = [0, 3, 1, 2]  # grouped: style 0 first
    grouped = tst.score_texts(
        [sources[i] for i in order],
        [outputs[i] for i in order],
        [styles[i] for i in order],
        tmp_path,
        metrics=keys,
        evaluators_dir=tmp_path / "ev",
    )
    assert mixed.scores == grouped.scores and sorted(mixed.scores) == sorted(keys)
    assert mixed.json["n_sentences"] == 4 and mixed.skipped == {}
    assert mixed.signature == mixed.json["signature"]["line"] and "|gm:none|" in mixed.signature
    assert set(mixed.signatures) == set(keys) and mixed.signatures == grouped.signatures


def _workflow_texts(run: Path, config: dict, ckpt: str):
    """M0's test sources, outputs and styles as the workflow scored them, and per sentence its references."""
    from tst.metrics.bleu import read_references

    sources, outputs, styles = [], [], []
    for style in layout.STYLES:
        src = (run / layout.sources("demo", "M0.seed1", "test", ckpt, style)).read_text().splitlines()
        out = (run / layout.outputs("demo", "M0.seed1", "test", ckpt, style)).read_text().splitlines()
        sources, outputs, styles = sources + src, outputs + out, styles + [style] * len(src)
    refs = read_references([run / layout.references("demo", s) for s in layout.STYLES], sources)
    return sources, outputs, styles, refs


@pytest.mark.slow
def test_score_texts_gives_tst_scores_numbers_json_and_signatures(finished_run):
    sys.path.insert(0, str(Path(__file__).parent / "cli"))
    from test_score_routes import tst_score

    config = yaml.safe_load((finished_run / "config.yaml").read_text())
    ckpt = stages.test_checkpoints(config)[-1]
    sources, outputs, styles, refs = _workflow_texts(finished_run, config, ckpt)
    dataset_dir = finished_run / layout.root("demo")
    result = tst.score_texts(sources, outputs, styles, dataset_dir, references=refs, system="M0.seed1")
    files = [
        "--sources",
        *[layout.sources("demo", "M0.seed1", "test", ckpt, s) for s in layout.STYLES],
        "--outputs",
        *[layout.outputs("demo", "M0.seed1", "test", ckpt, s) for s in layout.STYLES],
        "--references",
        *[layout.references("demo", s) for s in layout.STYLES],
    ]
    cli = tst_score(finished_run, ["--dataset-dir", layout.root("demo"), "--system", "M0.seed1", *files])
    assert len(cli["metrics"]) >= 25 and "gm" in cli["metrics"] and "attribute_hit" in cli["skipped"]
    assert list(result.scores) == list(cli["metrics"]) and dict(result.skipped) == cli["skipped"]
    for key, m in cli["metrics"].items():
        a, b = result.scores[key], m["score"]
        assert a == b or math.isclose(a, b, rel_tol=1e-6, abs_tol=0.0), key
        assert result.json["metrics"][key]["variant"] == m["variant"], key
        assert result.signatures[key] == m["signature"], key
        ci_a, ci_b = result.json["metrics"][key].get("ci95"), m.get("ci95")
        assert (ci_a is None) == (ci_b is None), key
        if ci_a is not None:
            assert ci_a == ci_b or all(
                math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-12)
                for x, y in zip(ci_a, ci_b, strict=True)
                if isinstance(x, float)
            ), key
    assert result.signature == cli["signature"]["line"]
    assert result.json["signature"] == cli["signature"]  # the commit too: an output that is not cached
    assert result.json["n_with_reference"] == cli["n_with_reference"] == len(sources)
    assert result.json["normalization"]["applied"] and json.dumps(result.json)  # plain JSON
