"""`tst score` on bad input: every error names the file and the line, without a traceback (exit 1: a file's
content, exit 2: the command line); a broken evaluator skips only its metrics; `--encoding-errors replace`
goes on and counts the lines it changed; a progress bar only on a terminal."""

import io
import json
import subprocess
import sys

import pytest

from tst.cli import main
from tst.io import NotUTF8Error, read_lines, read_lines_counted, write_lines

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
    return ["score", "--dataset-dir", str(d / dataset), "--sources", str(d / "test.0.txt"), str(d / "test.1.txt"),
            "--outputs", *[str(d / o) for o in outputs], *extra]


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
    ref.write_bytes(b"the food was good\tthe food was bad\n"
                    b"the decor was really ugly\t" + BAD + b"\n"
                    b"unrelated\tcaf\xe9\n")
    code, err = _fails(_score(d, "--metrics", "bleu_ref_corpus", "--references", str(ref)), capsys)
    assert code == 1 and f"{ref}, line 2: byte 0xa8" in err
    main(_score(d, "--metrics", "bleu_ref_corpus", "--references", str(ref), "--encoding-errors", "replace"))
    obj = json.loads(capsys.readouterr().out)
    assert obj["input_encoding"] == {"errors": "replace", "replaced_lines": {str(ref): 2}}
    assert obj["metrics"]["bleu_ref_corpus"]["details"]["n_with_reference"] == 2


def test_no_traceback_and_exit_code_1(tmp_path):
    d = _files(tmp_path)
    (d / "bad.1.txt").write_bytes(BAD + b"\nok\n")
    r = subprocess.run([sys.executable, "-m", "tst", *_score(d, "--metrics", "bleu_self_corpus",
                                                             outputs=("out.0.txt", "bad.1.txt"))],
                       check=False, capture_output=True, text=True)
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
    code, err = _fails(_score(d, "--metrics", "attribute_hit", "--lists", str(d / "a.0.jsonl"),
                              str(d / "a.1.jsonl")), capsys)
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
