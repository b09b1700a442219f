"""Bad input fails fast and says where, or is dropped and counted; nothing half-built is taken for done.

Corpora: too few sentences per style and split stop prepare_data with the counts; control characters (NUL)
are dropped and counted. Config: each bad key stops tst.config.check_config (or the schema) naming the key.
Runs: artifacts of identical runs are byte-identical; a training job's lock stops a second copy at once;
a download is renamed into place only when complete."""

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest
import torch
import yaml
from conftest import run_script
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from tst import stages
from tst.cli import main
from tst.config import ConfigError, check_config
from tst.data.downloads import download
from tst.data.prepare import MIN_SENTENCES, TooFewSentences, expected_outputs, prepare_dataset
from tst.data.reader import read_text_lines
from tst.evaluators.embeddings import load_glove
from tst.io import NotUTF8Error, read_lines, read_lines_counted, write_lines
from tst.joblock import JobLockedError, job_lock
from tst.train.trainer import train_files, with_defaults

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "schemas" / "config.schema.yaml"


# ---------------------------------------------------------------- corpora


def toy_dataset(tmp_path, lines0, lines1, **extra):
    """A files-kind dataset with one pool file per style (split 10% dev, 10% test), no NER, no BPE."""
    data = tmp_path / "data"
    (data / "toy").mkdir(parents=True, exist_ok=True)
    for style, lines in ((0, lines0), (1, lines1)):
        (data / "toy" / f"{style}.txt").write_bytes(b"".join(x.encode("utf-8") + b"\n" for x in lines))
    cfg = {
        "styles": ["neg", "pos"],
        "source": {"kind": "files", "files": {"pool": "toy/{style}.txt"}},
        "length": {"min_words": 1, "max_words": 15},
        "splits": {"dev_fraction": 0.1, "test_fraction": 0.1, "seed": 0},
        **extra,
    }
    return cfg, data


def sentences(word, n):
    return [f"{word} number {i} was here" for i in range(n)]


def test_blank_style_stops_prepare_with_counts_and_writes_nothing(tmp_path):
    cfg, data = toy_dataset(tmp_path, sentences("bad", 40), ["", "   ", "", "", ""])
    out = tmp_path / "out"
    with pytest.raises(TooFewSentences) as e:
        prepare_dataset(cfg, data, out, None, "toy")
    msg = str(e.value)
    # 5 blank lines -> 0 sentences in every split of style 1; style 0 (40 lines: 32/4/4) is fine
    for split, minimum in (("train", 20), ("dev", 2), ("test", 2)):
        assert f"style 1 (pos) {split}: 0 sentences, minimum {minimum}" in msg
    assert "style 0" not in msg.split("source.files")[0]
    assert "source.files.pool style 1: read 5 lines, kept 0 (dropped: empty 5)" in msg
    assert "datasets.toy.min_sentences" in msg
    assert not out.exists() or not any(out.iterdir())  # nothing half-built


def test_one_huge_line_is_counted_as_too_long(tmp_path):
    cfg, data = toy_dataset(tmp_path, sentences("bad", 40), ["word " * 1000])  # 5000 characters > 2000
    with pytest.raises(TooFewSentences, match=r"read 1 lines, kept 0 \(dropped: too_long 1\)"):
        prepare_dataset(cfg, data, tmp_path / "out", None, "toy")


def test_three_sentences_give_empty_dev_and_test_and_stop(tmp_path):
    # 3 sentences, 10% each: round(0.3) = 0 dev, 0 test, 3 train
    cfg, data = toy_dataset(tmp_path, sentences("bad", 40), sentences("good", 3))
    with pytest.raises(TooFewSentences) as e:
        prepare_dataset(cfg, data, tmp_path / "out", None, "toy")
    msg = str(e.value)
    assert "style 1 (pos) train: 3 sentences, minimum 20" in msg
    assert "style 1 (pos) dev: 0 sentences, minimum 2" in msg
    assert "style 1 (pos) test: 0 sentences, minimum 2" in msg


def test_minimums_are_configurable(tmp_path):
    # 30 sentences: test round(3.0) = 3, dev 3, train 24 -> below train 25, but passes once lowered
    cfg, data = toy_dataset(
        tmp_path,
        sentences("bad", 40),
        sentences("good", 30),
        min_sentences={"train": 25, "dev": 3, "test": 3},
    )
    with pytest.raises(TooFewSentences, match=r"style 1 \(pos\) train: 24 sentences, minimum 25"):
        prepare_dataset(cfg, data, tmp_path / "a", None, "toy")
    cfg["min_sentences"] = {"train": 24, "dev": 3, "test": 3}
    report = prepare_dataset(cfg, data, tmp_path / "b", None, "toy")
    assert [report["splits"][sp]["1"]["kept"] for sp in ("train", "dev", "test")] == [24, 3, 3]


def test_default_minimums_are_the_configs_and_the_schemas():
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    assert cfg["datasets"]["demo"]["min_sentences"] == MIN_SENTENCES
    schema = yaml.safe_load(SCHEMA.read_text())["$defs"]["dataset"]["properties"]["min_sentences"][
        "properties"
    ]
    assert {k: v["default"] for k, v in schema.items()} == MIN_SENTENCES


def test_nul_and_control_lines_are_dropped_and_counted(tmp_path):
    bad = ["\0\0\0", "good\0word here", "bell\x07 here", "tab\tis fine here"]
    cfg, data = toy_dataset(tmp_path, sentences("bad", 40), sentences("good", 40) + bad)
    report = prepare_dataset(cfg, data, tmp_path / "out", None, "toy")
    counts = report["inputs"]["pool"]["1"]
    assert counts["read"] == 44 and counts["dropped"]["control"] == 3 and counts["kept"] == 41
    vocab = (tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8")
    assert "\0" not in vocab and "\x07" not in vocab
    c = Counter()
    assert read_text_lines(data / "toy" / "1.txt", counts=c)[-1] == "tab\tis fine here"
    assert c["control"] == 3


# ---------------------------------------------------------------- config


@pytest.fixture
def config():
    return yaml.safe_load((REPO / "config.yaml").read_text())


def test_default_config_passes(config):
    validate(config, str(SCHEMA))
    check_config(config)


@pytest.mark.parametrize("epochs", [0.5, 1.5, 0, True, "2"])
def test_epochs_one_rule_schema_config_and_trainer(config, epochs):
    config["transfer"]["epochs"] = epochs
    with pytest.raises(WorkflowError):
        validate(config, str(SCHEMA))
    with pytest.raises(ConfigError, match=r"config key transfer\.epochs: .* whole number"):
        check_config(config)
    with pytest.raises(ValueError, match=r"transfer\.epochs"):
        with_defaults({"epochs": epochs})


def test_epochs_two_point_zero_is_two_everywhere(config):
    config["transfer"]["epochs"] = 2.0  # JSON Schema counts 2.0 as an integer; so does the rule
    validate(config, str(SCHEMA))
    check_config(config)
    assert stages.checkpoints(config) == ["ep0.5", "ep1.0", "ep1.5", "ep2.0"]
    assert (
        with_defaults({"epochs": 2.0})["epochs"] == 2
        and type(with_defaults({"epochs": 2.0})["epochs"]) is int
    )


@pytest.mark.parametrize(
    "section, value, expected",
    [
        ("transfer", {"run_variants": ["M0", "M9"]}, r"transfer\.run_variants\[1\]: unknown variant 'M9'"),
        (
            "transfer",
            {"epochs": 1, "test_checkpoints": ["ep9.0"]},
            r"transfer\.test_checkpoints\[0\]: ep9\.0 is not a checkpoint of a 1-epoch run \(ep0\.5 \.\.\. ep1\.0\)",
        ),
        ("score", {"naturalness": {"lr": "json", "nm": "pt"}}, r"score\.naturalness\.nm"),
        (
            "transfer",
            {"datasets": ["nope"]},
            r"transfer\.datasets\[0\]: unknown dataset 'nope'; allowed: demo",
        ),
    ],
)
def test_bad_key_is_named_at_load(config, section, value, expected):
    config[section].update(value)
    with pytest.raises(ConfigError, match=expected):
        check_config(config)


def test_transfer_datasets_not_in_run_is_refused(config):
    config["datasets"]["other"] = dict(config["datasets"]["demo"])
    config["transfer"]["datasets"] = ["other"]
    with pytest.raises(ConfigError, match=r"transfer\.datasets\[0\]: 'other' is not in run \(demo\)"):
        check_config(config)


def test_transfer_datasets_is_honoured(config):
    config["datasets"]["other"] = dict(config["datasets"]["demo"])
    config["run"] = ["demo", "other"]
    config["transfer"]["datasets"] = ["other"]
    check_config(config)
    assert stages.trained_datasets(config) == ["other"]
    assert stages.our_models(config, "demo") == []
    assert stages.our_models(config, "other") == [(v, 1) for v in config["transfer"]["run_variants"]]


# ---------------------------------------------------------------- runs: identical runs, identical bytes


def all_files(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def keys_of(obj):
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in keys_of(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in keys_of(v)}
    return set()


def test_prepare_twice_gives_the_same_bytes_and_no_timings(tmp_path):
    cfg, data = toy_dataset(tmp_path, sentences("bad", 40), sentences("good", 40))
    prepare_dataset(cfg, data, tmp_path / "a", None, "toy")
    prepare_dataset(cfg, data, tmp_path / "b", None, "toy")
    a, b = all_files(tmp_path / "a"), all_files(tmp_path / "b")
    assert sorted(a) == sorted(expected_outputs(cfg)) and a == b
    assert not {k for k in keys_of(json.loads(a["report.json"])) if "second" in k or "time" in k}


def train_evaluators(tmp_path, folder):
    """The cnn style classifier and the joint LM of a tiny corpus, through the workflow's scripts."""
    data = tmp_path / "data_out"
    if not data.exists():
        cfg, raw = toy_dataset(tmp_path, sentences("bad", 40), sentences("good", 40))
        prepare_dataset(cfg, raw, data, None, "toy")
    common = {
        "emb_dim": 8,
        "batch_size": 16,
        "max_epochs": 2,
        "patience": 1,
        "seed": 1,
        "device": "cpu",
        "min_count": 1,
    }
    inputs = {
        "train": [str(data / f"train.{s}.txt") for s in (0, 1)],
        "dev": [str(data / f"dev.{s}.txt") for s in (0, 1)],
        "vocab": str(data / "vocab.txt"),
    }
    out = tmp_path / folder
    run_script(
        "train_classifier",
        input=inputs,
        output=[str(out / "style_cnn.pt")],
        params={"settings": {**common, "widths": [1, 2], "n_filters": 4}},
        wildcards={"kind": "cnn"},
        log=[str(tmp_path / "logs" / folder / "cnn.log")],
    )
    run_script(
        "train_lm",
        input=inputs,
        output=[str(out / "lm_joint.pt")],
        params={"settings": {**common, "hidden_dim": 8}},
        wildcards={"lm": "joint"},
        log=[str(tmp_path / "logs" / folder / "lm.log")],
    )
    return out


def test_two_runs_save_identical_evaluators_and_score_files(tmp_path):
    from tst.io import write_json
    from tst.scoring.compute import score_system
    from tst.scoring.write import score_json, score_meta

    a, b = train_evaluators(tmp_path, "a"), train_evaluators(tmp_path, "b")
    assert all_files(a) == all_files(b) and len(all_files(a)) == 2
    ck = torch.load(a / "style_cnn.pt", weights_only=True)
    assert {k for e in ck["metrics"]["epochs"] for k in e} == {"epoch", "train_loss", "dev"}
    assert "epoch" in (tmp_path / "logs" / "a" / "cnn.log").read_text()  # the timings went to the log
    sources = [s.split() for s in sentences("bad", 3)]
    outputs = [s.split() for s in sentences("good", 3)]
    for folder in (a, b):
        scores = score_system(sources, outputs, [0, 0, 0], folder, only={"acc", "pp_joint"})
        assert set(scores) == {"acc", "pp_joint"}
        write_json(
            folder / "score.json", score_json(scores, score_meta("toy", "M0.seed1", "test", "ep1.0"), 3)
        )
    assert (a / "score.json").read_bytes() == (b / "score.json").read_bytes()


# ---------------------------------------------------------------- runs: one process per training job

HOLD = "import sys, time; from tst.joblock import job_lock\nwith job_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(120)\n"


def test_second_process_stops_at_once_naming_the_lock_file(tmp_path):
    out_dir = tmp_path / "models" / "M0" / "seed1"
    lock = out_dir / "train.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        missing = [str(tmp_path / "no_such_file")] * 2  # the lock is checked before any input is read
        with pytest.raises(JobLockedError, match=str(lock).replace(".", r"\.")):
            train_files(
                {"epochs": 1},
                {"model": "cross_aligned"},
                1,
                out_dir,
                missing,
                missing,
                str(tmp_path / "no_vocab"),
                1,
            )
    finally:
        holder.kill()  # SIGKILL: the kernel still releases the lock
        holder.wait()
    # free again after the holder died; and held: a second open of the same file is refused
    with job_lock(lock), pytest.raises(JobLockedError), job_lock(lock):
        pass


# ---------------------------------------------------------------- runs: downloads renamed only when complete


class FakeResponse(io.BytesIO):
    def __init__(self, body: bytes, length: int):
        super().__init__(body)
        self.headers = {"Content-Length": str(length)}


def test_download_checks_size_and_hash_before_renaming(tmp_path):
    src = tmp_path / "src.txt"
    src.write_bytes(b"0123456789")
    out = tmp_path / "got" / "file.txt"
    assert download(src.as_uri(), out, sha256=hashlib.sha256(b"0123456789").hexdigest()) == 10
    assert out.read_bytes() == b"0123456789"
    bad = tmp_path / "bad.txt"
    with pytest.raises(ValueError, match="SHA-256"):
        download(src.as_uri(), bad, sha256="0" * 64)
    with pytest.raises(ValueError, match=r"incomplete download from http://x/y: 5 of 10 bytes"):
        download("http://x/y", bad, opener=lambda url, timeout: FakeResponse(b"01234", 10))
    assert not bad.exists() and not list(tmp_path.glob("bad.txt*"))  # no partial file, no .part left


def test_glove_url_partial_cache_is_fetched_again(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("glove.toy.txt", "good 1 2\nbad 3 4\n")
    (tmp_path / "glove.toy.zip").write_bytes(buf.getvalue())
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "glove.toy.zip").write_bytes(buf.getvalue()[:20])  # what an interrupted urlretrieve left
    emb = load_glove((tmp_path / "glove.toy.zip").as_uri(), cache_dir=cache)
    assert emb.get("bad").tolist() == [3.0, 4.0] and len(emb) == 2
    assert (cache / "glove.toy.zip").read_bytes() == buf.getvalue()


def test_readme_says_unlock_and_names_the_lock():
    readme = (REPO / "README.md").read_text()
    assert "--unlock" in readme and "train.lock" in readme


# ---- tst score: every error names the file and the line, without a traceback (exit 1: a file's content, exit 2:
# the command line); a broken evaluator skips only its metrics; --encoding-errors replace goes on and counts the
# lines it changed; a progress bar only on a terminal ----

# The line of DualRL's references/yelp/reference2.0 (luofuli/DualRL) that is not UTF-8: "décor" in another
# encoding, bytes 0xa8 0xa6 where UTF-8 has 0xc3 0xa9.
BAD = b"the d\xa8\xa6cor was really beautiful"


def _files(tmp_path):
    write_lines(tmp_path / "test.0.txt", ["the food was bad", "service was slow"])
    write_lines(tmp_path / "test.1.txt", ["the food was good", "the decor was really ugly"])
    write_lines(tmp_path / "out.0.txt", ["the food was good", "service was fast"])
    write_lines(tmp_path / "out.1.txt", ["the food was bad", "the decor was really beautiful"])
    return tmp_path


def _score(d, *extra, outputs=("out.0.txt", "out.1.txt"), dataset="ds"):
    return [
        "score",
        "--dataset-dir",
        str(d / dataset),
        "--sources",
        str(d / "test.0.txt"),
        str(d / "test.1.txt"),
        "--outputs",
        *[str(d / o) for o in outputs],
        *extra,
    ]


def _fails(argv, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as e:
        main(argv)
    return e.value.code, capsys.readouterr().err


def test_read_lines_names_file_line_and_byte(tmp_path):
    p = tmp_path / "reference2.0"
    p.write_bytes(b"first line\nsecond line\n" + BAD + b"\nlast\n")
    with pytest.raises(NotUTF8Error) as e:
        read_lines(p)
    # line 3, the bad byte is the 6th byte of the line ("the d" = 5 bytes before it)
    assert str(e.value).startswith(f"{p}, line 3: byte 0xa8 (byte 6 of the line)")
    lines, n = read_lines_counted(p, "replace")
    assert n == 1  # two bad bytes, one line
    assert lines == ["first line", "second line", "the d\ufffd\ufffdcor was really beautiful", "last"]


def test_non_utf8_outputs_file_names_file_and_line(tmp_path, capsys):
    d = _files(tmp_path)
    (d / "bad.1.txt").write_bytes(b"the food was bad\n" + BAD + b"\n")
    code, err = _fails(_score(d, "--metrics", "bleu_self_corpus", outputs=("out.0.txt", "bad.1.txt")), capsys)
    assert code == 1
    assert f"{d / 'bad.1.txt'}, line 2: byte 0xa8" in err
    assert "--encoding-errors replace" in err


def test_non_utf8_references_stop_or_are_replaced_and_counted(tmp_path, capsys):
    d = _files(tmp_path)
    ref = d / "reference2.1"
    # line 2 has two bad bytes, line 3 one: 2 lines replaced
    ref.write_bytes(
        b"the food was good\tthe food was bad\nthe decor was really ugly\t" + BAD + b"\nunrelated\tcaf\xe9\n"
    )
    code, err = _fails(_score(d, "--metrics", "bleu_ref_corpus", "--references", str(ref)), capsys)
    assert code == 1 and f"{ref}, line 2: byte 0xa8" in err
    main(_score(d, "--metrics", "bleu_ref_corpus", "--references", str(ref), "--encoding-errors", "replace"))
    obj = json.loads(capsys.readouterr().out)
    assert obj["input_encoding"] == {"errors": "replace", "replaced_lines": {str(ref): 2}}
    assert obj["metrics"]["bleu_ref_corpus"]["details"]["n_with_reference"] == 2


def test_no_traceback_and_exit_code_1(tmp_path):
    d = _files(tmp_path)
    (d / "bad.1.txt").write_bytes(BAD + b"\nok\n")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "tst",
            *_score(d, "--metrics", "bleu_self_corpus", outputs=("out.0.txt", "bad.1.txt")),
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"tst score: error: {d / 'bad.1.txt'}, line 1:")


def test_reference_line_without_tab_names_the_line(tmp_path, capsys):
    d = _files(tmp_path)
    write_lines(d / "refs.tsv", ["the food was good\tthe food was bad", "", "no tab here"])
    code, err = _fails(_score(d, "--metrics", "bleu_ref_corpus", "--references", str(d / "refs.tsv")), capsys)
    assert code == 1 and f"{d / 'refs.tsv'}, line 3: expected source<TAB>reference" in err


def test_attribute_list_that_is_not_json_names_the_line(tmp_path, capsys):
    d = _files(tmp_path)
    write_lines(d / "a.0.jsonl", ['{"independent": ["food"]}', '{"independent": [servic]}'])
    write_lines(d / "a.1.jsonl", ['{"independent": []}', '{"independent": []}'])
    code, err = _fails(
        _score(d, "--metrics", "attribute_hit", "--lists", str(d / "a.0.jsonl"), str(d / "a.1.jsonl")), capsys
    )
    assert code == 1 and f"{d / 'a.0.jsonl'}, line 2: not JSON" in err


def test_corrupt_evaluator_skips_its_metrics_only(tmp_path, capsys):
    d = _files(tmp_path)
    ev = d / "ds" / "evaluators"
    ev.mkdir(parents=True)
    (ev / "style_cnn.pt").write_bytes(b"PK\x03\x04 this is not a torch checkpoint")
    main(_score(d, "--metrics", "acc", "sti", "bleu_self_corpus"))
    obj = json.loads(capsys.readouterr().out)
    # acc and STI both need style_cnn.pt; self-BLEU needs no evaluator and is computed
    assert set(obj["skipped"]) == {"acc", "sti"}
    assert obj["skipped"]["acc"] == obj["skipped"]["sti"]
    assert obj["skipped"]["acc"].startswith("cannot load evaluator file style_cnn.pt (")
    assert list(obj["metrics"]) == ["bleu_self_corpus"] and obj["evaluators"] == {}


def test_missing_dataset_dir_is_an_error_unless_metrics_need_no_evaluator(tmp_path, capsys):
    d = _files(tmp_path)
    code, err = _fails(_score(d, dataset="nowhere"), capsys)
    assert code == 2 and f"no evaluators folder {d / 'nowhere' / 'evaluators'}" in err
    need, free = err.split("but ")[1].split("only: ")
    assert "acc, " in need and "bleu_self_corpus" not in need
    # the naturalness classifiers are files named by the system: not evaluator-free
    assert {"bleu_self_corpus", "bleu_ref_corpus", "attribute_hit"} <= set(free.split())
    assert not {"acc", "sim", "naturalness_lr", "naturalness_nn"} & set(free.split())
    code, err = _fails(_score(d, "--metrics", "bleu_self_corpus", "acc", dataset="nowhere"), capsys)
    assert code == 2 and "but acc need evaluators" in err
    main(_score(d, "--metrics", "bleu_self_corpus", dataset="nowhere"))
    obj = json.loads(capsys.readouterr().out)
    assert list(obj["metrics"]) == ["bleu_self_corpus"] and obj["skipped"] == {}


def test_missing_input_file_and_unknown_metric_exit_2(tmp_path, capsys):
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    code, err = _fails(_score(d, outputs=("out.0.txt", "gone.1.txt")), capsys)
    assert code == 2 and f"--outputs {d / 'gone.1.txt'}: no such file" in err
    code, err = _fails(_score(d, "--metrics", "blue"), capsys)
    assert code == 2 and "unknown metric keys ['blue']" in err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    main(_score(d, "--metrics", "bleu_self_corpus"))
    assert capsys.readouterr().err == ""  # stderr is not a terminal here: nothing
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    main(_score(d, "--metrics", "bleu_self_corpus"))
    assert "tst score" in term.getvalue() and "bleu_self_corpus" in term.getvalue()


# ---------------------------------------------------------------- tst score: clean errors


def _glove(ev, words=("the", "food", "was", "bad", "good", "service", "slow", "fast")):
    """A real (tiny) embeddings file in the format load_embeddings reads."""
    import numpy as np
    from gensim.models import KeyedVectors

    kv = KeyedVectors(4)
    kv.add_vectors(list(words), np.random.default_rng(0).normal(size=(len(words), 4)).astype(np.float32))
    kv.save_word2vec_format(str(ev / "glove.kv"), binary=True)


def test_wrong_shaped_evaluator_json_skips_its_metrics_naming_file_and_fix(tmp_path, capsys):
    d = _files(tmp_path)
    ev = d / "ds" / "evaluators"
    ev.mkdir(parents=True)
    _glove(ev)
    (ev / "idf.json").write_text("{}")  # was a KeyError traceback
    (ev / "style_lexicon.json").write_text('"good bad"')  # was read as the letters g, o, d, b, a, ' '
    main(_score(d, "--metrics", "sim", "cp", "bleu_self_corpus", "--cp-lexicon", "style_lexicon"))
    obj = json.loads(capsys.readouterr().out)
    assert list(obj["metrics"]) == ["bleu_self_corpus"] and set(obj["skipped"]) == {"sim", "cp"}
    assert obj["skipped"]["sim"] == (
        f"cannot load evaluator file idf.json: {ev / 'idf.json'}: no key 'idf'; expected "
        '{"idf": {word: number}, "n_docs": int, "default": number} (rebuild it: rule build_idf)'
    )
    assert obj["skipped"]["cp"].startswith(
        f"cannot load evaluator file style_lexicon.json: {ev / 'style_lexicon.json'}: a JSON str, not an object"
    )
    assert "rule build_style_lexicon" in obj["skipped"]["cp"]


def test_idf_and_lexicon_checks_pass_what_their_builders_write_and_name_a_bad_value():
    from tst.evaluators.idf import check_idf, compute_idf
    from tst.evaluators.style_lexicon import build_style_lexicon, check_style_lexicon
    from tst.io import InputError

    sents = [["good", "food"], ["bad", "food"]] * 5
    idf = compute_idf(sents)
    assert check_idf(json.loads(json.dumps(idf))) == idf
    lex = build_style_lexicon(sents[1::2], sents[::2])
    assert check_style_lexicon(json.loads(json.dumps(lex))) == lex
    with pytest.raises(InputError, match=r"x/idf.json: a value that is not a number: 'high'"):
        check_idf({"idf": {"food": "high"}, "default": 1.0}, "x/idf.json")
    with pytest.raises(InputError, match=r"\"idf\" is a list, not an object"):
        check_idf({"idf": [], "default": 1.0})
    with pytest.raises(InputError, match=r"'0' is not a list of words"):
        check_style_lexicon({"0": 5, "1": []})
    with pytest.raises(InputError, match=r"no key '1'"):
        check_style_lexicon({"0": ["bad"]})


def test_wrong_shaped_or_broken_gm_calibration_exits_1_naming_the_file(tmp_path, capsys):
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    cal = d / "cal.json"
    cal.write_text("{}")  # was taken for "no thresholds": gm skipped, exit 0
    code, err = _fails(_score(d, "--metrics", "bleu_self_corpus", "--gm-calibration", str(cal)), capsys)
    assert code == 1 and err.startswith(f"tst score: error: {cal}: no key 't'; expected the GM thresholds")
    own = d / "ds" / "validity" / "gm_thresholds.json"
    own.parent.mkdir()
    own.write_text('{"t": [1,\n')  # truncated: was a JSONDecodeError traceback
    code, err = _fails(_score(d, "--metrics", "bleu_self_corpus"), capsys)
    assert code == 1 and err.startswith(f"tst score: error: {own}, line 2: not JSON")


@pytest.mark.parametrize(
    ("t", "keys", "says"),
    [
        ("1.5", '["joint"]', "t_J = 1.5 is not a number in [0, 1)"),  # was a traceback after every metric
        ("-5", '["joint"]', "t_J = -5 is not a number in [0, 1)"),  # was silently raised to the set's bound
        ("NaN", '["joint"]', "t_J = nan is not a number in [0, 1)"),  # json reads NaN as a float
        ("0.3", '["acc"]', "\"keys\" is ['acc'], not ['joint']"),
    ],
)
def test_a_gm_calibration_out_of_range_stops_before_any_metric_naming_file_key_and_fix(
    tmp_path, capsys, monkeypatch, t, keys, says
):
    import tst.scoring.run

    def never(*args, **kwargs):
        raise AssertionError("a metric ran before the calibration file was checked")

    monkeypatch.setattr(tst.scoring.run, "score", never)
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    cal = d / "cal.json"
    cal.write_text(f'{{"t": [{t}], "keys": {keys}, "from": ["random_target"], "rule": "r"}}')
    code, err = _fails(_score(d, "--metrics", "bleu_self_corpus", "--gm-calibration", str(cal)), capsys)
    assert code == 1
    assert err.startswith(
        f'tst score: error: {cal}: "t": ' if "t_J" in says else f"tst score: error: {cal}: "
    )
    assert says in err and err.rstrip().endswith("rebuild it")


def test_empty_inputs_say_no_sentences_naming_the_files(tmp_path, capsys):
    d = _files(tmp_path)
    write_lines(d / "none.0.txt", [])
    write_lines(d / "none.1.txt", [])
    argv = _score(d, "--metrics", "bleu_self_corpus", outputs=("none.0.txt", "none.1.txt"))
    argv[argv.index("--sources") + 1 : argv.index("--sources") + 3] = [
        str(d / "none.0.txt"),
        str(d / "none.1.txt"),
    ]
    code, err = _fails(argv, capsys)  # was a ValueError traceback in BLEU
    assert code == 1
    assert err == (
        f"tst score: error: no sentences: {d / 'none.0.txt'} and {d / 'none.0.txt'} are empty (no lines); "
        "pass files with one sentence per line, or leave this pair out\n"
    )
    write_lines(d / "refs.tsv", ["", "  "])  # blank lines only: no reference at all (was a silent skip)
    code, err = _fails(_score(d, "--metrics", "bleu_ref_corpus", "--references", str(d / "refs.tsv")), capsys)
    assert code == 1 and f"no sentences: {d / 'refs.tsv'} is empty" in err


def test_command_line_mistakes_exit_2_with_the_prefix(tmp_path, capsys):
    d = _files(tmp_path)
    (d / "ds" / "evaluators").mkdir(parents=True)
    cases = [
        (_score(d, outputs=("out.0.txt",)), "2 --sources files but 1 --outputs files"),
        (_score(d, "--source-styles", "0"), "1 --source-styles for 2 --sources files"),
        (_score(d, "--lists-text", str(d / "test.0.txt")), "--lists-text given without --lists"),
        (_score(d, "--lists", str(d / "test.0.txt")), "1 --lists files for 2 --sources files"),
        (_score(d, "--tsv", str(d)), f"--tsv {d}: is a folder"),
    ]
    argv = _score(d)
    argv[argv.index("--outputs") + 2] = "-"
    cases.append((argv, "--outputs -: tst score reads files, not standard input"))
    write_lines(d / "out.txt", ["a", "b"])
    argv = _score(d)
    argv[argv.index("--sources") + 1] = str(d / "out.txt")
    cases.append((argv, f"cannot tell the source style of {d / 'out.txt'}"))
    for argv, message in cases:
        code, err = _fails(argv, capsys)
        assert (code, err.startswith(f"tst score: error: {message}")) == (2, True), (argv, err)


def test_style_is_read_from_raw_txt_names(tmp_path, capsys):
    from tst.names import style_of_file

    styles = {
        "test.0.txt": 0,
        "results/yelp/data/test.1.raw.txt": 1,  # BPE datasets' word-level text (README)
        "transfers/test.ep1.0.1.txt": 1,
        "reference.0": 0,
        "out.1.raw": 1,
        "test.2.txt": None,
        "test.0.bpe.txt": None,
        "test.txt": None,
        "test10.txt": None,
    }
    assert {name: style_of_file(name) for name in styles} == styles
    d = _files(tmp_path)
    for s in (0, 1):
        (d / f"test.{s}.raw.txt").write_bytes((d / f"test.{s}.txt").read_bytes())
    # sources named test.1.raw.txt, test.0.raw.txt (this order): styles 1, 1, 0, 0 in the per-sentence TSV
    argv = _score(
        d, "--metrics", "bleu_self_corpus", "--tsv", str(d / "s.tsv"), outputs=("out.1.txt", "out.0.txt")
    )
    i = argv.index("--sources")
    argv[i + 1 : i + 3] = [str(d / "test.1.raw.txt"), str(d / "test.0.raw.txt")]
    main(argv)
    assert json.loads(capsys.readouterr().out)["n_sentences"] == 4
    assert [r.split("\t")[1] for r in read_lines(d / "s.tsv")] == ["source_style", "1", "1", "0", "0"]


# ---------------------------------------------------------------- tst score: coverage is visible


def test_swapped_reference_columns_warn_and_record_n_with_reference(tmp_path, capsys):
    d = _files(tmp_path)
    write_lines(
        d / "refs.0.tsv", ["the food was good\tthe food was bad", "service was fast\tservice was slow"]
    )
    write_lines(
        d / "refs.1.tsv", ["the food was good\tthe food was bad", "the decor was really ugly\tit was nice"]
    )
    main(
        _score(
            d, "--metrics", "bleu_ref_corpus", "--references", str(d / "refs.0.tsv"), str(d / "refs.1.tsv")
        )
    )
    out = capsys.readouterr()
    obj = json.loads(out.out)
    # refs.0.tsv has reference<TAB>source: neither of its lines starts with a style-0 source; refs.1 matches both
    assert obj["n_sentences"] == 4 and obj["n_with_reference"] == 2
    assert obj["metrics"]["bleu_ref_corpus"]["details"]["n_with_reference"] == 2
    assert out.err.startswith("tst score: warning: only 2 of 4 outputs have a reference")
    main(_score(d, "--metrics", "bleu_self_corpus"))  # no references: null, no warning
    out = capsys.readouterr()
    assert json.loads(out.out)["n_with_reference"] is None and out.err == ""


def test_byte_order_mark_is_dropped_by_every_reader(tmp_path, capsys):
    from tst.data.systems import read_all_lines
    from tst.io import decode_lines

    assert decode_lines(b"\xef\xbb\xbfthe food\nwas bad\n") == (["the food", "was bad"], 0)
    p = tmp_path / "bom.txt"
    p.write_bytes(b"\xef\xbb\xbfthe food was bad\nok\n")
    assert read_text_lines(p) == ["the food was bad", "ok"]  # prepare
    assert read_all_lines(p) == ["the food was bad", "ok"]  # import_system
    d = _files(tmp_path)
    (d / "bom.0.txt").write_bytes(b"\xef\xbb\xbf" + (d / "test.0.txt").read_bytes())
    main(_score(d, "--metrics", "bleu_self_corpus", outputs=("bom.0.txt", "test.1.txt")))
    # the outputs copy the sources: 100 (with the mark, "\ufeffthe" != "the" and 1-gram precision < 1)
    assert json.loads(capsys.readouterr().out)["metrics"]["bleu_self_corpus"]["score"] == pytest.approx(100.0)


def test_control_character_lines_are_read_as_empty_and_counted(tmp_path, capsys):
    d = _files(tmp_path)
    (d / "nul.1.txt").write_bytes(b"\0\0\0\nthe decor\x07 was really ugly\n")  # NUL only; a BEL inside
    main(_score(d, "--metrics", "bleu_self_sentence", outputs=("out.0.txt", "nul.1.txt")))
    out = capsys.readouterr()
    obj = json.loads(out.out)
    assert obj["control_lines"] == {str(d / "nul.1.txt"): 2} and obj["n_empty"] == 2
    assert f"tst score: warning: {d / 'nul.1.txt'}: 2 line(s) with a control character" in out.err
    assert "tst score: warning: 2 of 4 outputs are empty" in out.err
    write_lines(d / "blank.1.txt", ["", ""])  # the same outputs as two empty lines: the same scores
    main(_score(d, "--metrics", "bleu_self_sentence", outputs=("out.0.txt", "blank.1.txt")))
    blank = json.loads(capsys.readouterr().out)
    assert blank["metrics"] == obj["metrics"] and blank["control_lines"] == {}


# ---------------------------------------------------------------- config: two distinct styles


@pytest.mark.parametrize("styles", [["neg", "neg"], ["", "pos"], ["neg", "   "]])
def test_styles_must_be_two_distinct_non_blank_names(config, styles):
    config["datasets"]["demo"]["styles"] = styles
    with pytest.raises(WorkflowError):  # the schema: uniqueItems, minLength, a non-space character
        validate(config, str(SCHEMA))
    with pytest.raises(ConfigError, match=r"datasets\.demo\.styles: two distinct, non-blank style"):
        check_config(config)  # and the check run without the schema (e.g. tst transfer)


def test_prepare_stops_when_the_styles_are_mostly_the_same_sentences(tmp_path):
    from tst.data.prepare import SameSentences

    same = sentences("same", 40)
    cfg, data = toy_dataset(tmp_path, same, same)  # both styles read the same lines
    with pytest.raises(SameSentences) as e:
        prepare_dataset(cfg, data, tmp_path / "out", None, "toy")
    assert str(e.value).startswith(
        "datasets.toy: the two styles are mostly the same sentences: 100% of style 0 (neg), 100% of style 1 "
        "(pos) also in the other style (at most 50% allowed)."
    )
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    cfg, data = toy_dataset(tmp_path / "b", sentences("bad", 40), sentences("good", 40))
    report = prepare_dataset(cfg, data, tmp_path / "b" / "out", None, "toy")
    assert report["shared_between_styles"] == {"0": 0.0, "1": 0.0}


def test_shared_share_counts_distinct_sentences_of_all_splits_and_stops_above_half():
    from tst.data.prepare import SameSentences, check_styles_differ, shared_between_styles

    a, b, c, d, e = "a .", "b .", "c .", "d .", "e ."
    # style 0: {a, b, c, d} (a twice, across splits); style 1: {a, b, e}; shared {a, b}: 2/4 and 2/3
    splits = {
        "train": {0: [a, b, c], 1: [a, e]},
        "dev": {0: [d, a], 1: [b]},
        "test": {0: [], 1: []},
    }
    assert shared_between_styles(splits) == {"0": 0.5, "1": pytest.approx(2 / 3)}
    with pytest.raises(SameSentences, match=r"50% of style 0 \(x\), 67% of style 1 \(y\)"):
        check_styles_differ({"styles": ["x", "y"]}, "toy", splits, {})
    splits["train"][1].append("f .")  # style 1: {a, b, e, f}: 2/4 = 0.5, not above half: goes on
    report = {}
    check_styles_differ({"styles": ["x", "y"]}, "toy", splits, report)
    assert report["shared_between_styles"] == {"0": 0.5, "1": 0.5}
