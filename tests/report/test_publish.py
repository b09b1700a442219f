"""The published leaderboard (tst.report.publish): a run's leaderboard table with the config files used and the
score signature once per dataset, no line over 3,000 characters, and a clear error when a declared system is
missing or the run is not finished."""

import hashlib
import json

import pytest
from test_build import score_files  # noqa: F401 (fixture)

from tst import signature
from tst.io import InputError
from tst.report import build
from tst.report.publish import main, publish, split_signature

BOARD = "**Leaderboard on the test set**\n\n| System | Acc ↑ |\n|:---|---:|\n| alpha | 0.900 [0.850, 0.950] (1) |\n"
SIG = "tst:0.3.0|gm:1a2b3c4d,tJ=0.0213|norm:ptb+lc|eval:0123456789ab|var:ba9876543210|code:0123456789abcdef"


def run_folder(tmp_path, systems=("alpha", "reference", "source"), signed=True):
    ds = tmp_path / "results" / "toy"
    (ds / "tables").mkdir(parents=True)
    note = "- " + signature.NOTE + SIG.replace("|", "\\|") + "\n" if signed else ""  # as the report writes it
    (ds / "tables" / "leaderboard.md").write_text(BOARD + "\n- Acc ↑: a note\n" + note, encoding="utf-8")
    (ds / "tables" / "leaderboard.csv").write_text(
        "rank_by,system,kind\n" + "".join(f"gm,{s},x\n" for s in systems)
    )
    for s in systems:
        (ds / "scores" / s).mkdir(parents=True)
        rec = {"system": s, "metrics": {}}
        (ds / "scores" / s / "test.final.json").write_text(json.dumps(rec))
    config = tmp_path / "run.yaml"
    # Li et al.'s references are declared as `human`; the board shows them as `reference`
    config.write_text(
        "datasets:\n  toy:\n    systems:\n      alpha: {file: a.txt}\n      human: {file: h.txt}\n"
    )
    return ds, config


def test_the_run_table_with_its_configs_and_signature(tmp_path):
    ds, config = run_folder(tmp_path)
    text = publish([ds], [config])
    assert text.startswith("# Leaderboard\n")
    assert f"- `{config.as_posix()}` {hashlib.sha256(config.read_bytes()).hexdigest()}" in text
    # the table's signature footnote, once, above the table (out of its notes), its "|" no longer escaped
    assert (
        f"## toy\n\nScore signature ([citing.md](citing.md)): `{SIG}`\n\n" + BOARD + "\n- Acc ↑: a note\n"
        in text
    )
    assert text.count("tst:0.3.0") == 1 and signature.NOTE not in text
    assert publish([ds], [config]) == text  # nothing but the inputs: the same run gives the same file
    ds2, config2 = run_folder(tmp_path / "unsigned", signed=False)
    assert "Score signature" not in publish([ds2], [config2])
    assert split_signature(BOARD) == (None, BOARD.rstrip())


def test_a_leaderboard_built_from_score_files_publishes_short_lines(score_files, tmp_path):  # noqa: F811
    """The report's tables of the synthetic score files of test_build, published: the signature the tables carry
    (the one of all their score files) once, at most 120 characters, and no line over 3,000 characters."""
    ds = tmp_path / "results" / "toy"
    build.build_tables(score_files, ds / "tables", {"target_acc": 0.80, "tolerance": 0.02}, ["M0", "M2"])
    config = tmp_path / "run.yaml"
    config.write_text("datasets:\n  toy:\n    systems:\n      mit: {file: m.txt}\n")
    text = publish([ds], [config])
    want = signature.of_score_files([json.loads(p.read_text()) for p in score_files])["line"]
    assert (
        len(want) <= 120
        and text.count(want) == 1
        and f"Score signature ([citing.md](citing.md)): `{want}`" in text
    )
    assert text.count("tst:") == 1 and "| mit |" in text.replace("◦", "")
    assert max(len(line) for line in text.splitlines()) <= 3000


def test_a_declared_system_missing_from_the_board_stops_with_its_name(tmp_path, capsys):
    ds, config = run_folder(tmp_path, systems=("reference", "source"))
    with pytest.raises(
        InputError, match=r"leaderboard\.csv: the declared systems \['alpha'\] of datasets\.toy"
    ):
        publish([ds], [config])
    assert main([str(ds), "--configfile", str(config)]) == 1
    assert "tst.report.publish: error:" in capsys.readouterr().err


def test_an_unfinished_run_names_the_missing_table(tmp_path):
    ds, config = run_folder(tmp_path)
    (ds / "tables" / "leaderboard.md").unlink()
    with pytest.raises(InputError, match=r"leaderboard\.md: no leaderboard table; finish the run first"):
        publish([ds], [config])


@pytest.mark.slow
def test_publish_the_tiny_run(finished_run, capsys):
    """On the test suite's tiny run: every leaderboard row of the run, as the report wrote it, its signature once
    above it, and no line over 3,000 characters."""
    ds = finished_run / "results" / "demo"
    assert main([str(ds), "--configfile", str(finished_run / "config.yaml")]) == 0
    out = capsys.readouterr().out
    sig, table = split_signature((ds / "tables" / "leaderboard.md").read_text(encoding="utf-8"))
    assert table in out and f"## demo\n\nScore signature ([citing.md](citing.md)): `{sig}`\n\n" in out
    assert sig.startswith(f"tst:{signature.version()}|gm:") and out.count("tst:") == 1 and len(sig) <= 120
    assert max(len(line) for line in out.splitlines()) <= 3000
    rows = (ds / "tables" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) >= 8 and all(f"| {row.split(',')[1]}" in out for row in rows)
