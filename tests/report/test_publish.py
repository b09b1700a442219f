"""The published leaderboard (tst.report.publish): a run's leaderboard table with the config files used and the
score signature, and a clear error when a declared system is missing or the run is not finished."""

import hashlib
import json

import pytest

from tst.io import InputError
from tst.report.publish import main, publish

BOARD = "**Leaderboard on the test set**\n\n| System | Acc ↑ |\n|:---|---:|\n| alpha | 0.900 [0.850, 0.950] (1) |\n"


def run_folder(tmp_path, systems=("alpha", "reference", "source"), signature=None):
    ds = tmp_path / "results" / "toy"
    (ds / "tables").mkdir(parents=True)
    (ds / "tables" / "leaderboard.md").write_text(BOARD, encoding="utf-8")
    (ds / "tables" / "leaderboard.csv").write_text(
        "rank_by,system,kind\n" + "".join(f"gm,{s},x\n" for s in systems)
    )
    for s in systems:
        (ds / "scores" / s).mkdir(parents=True)
        rec = {"system": s, "metrics": {}, **({"signature": signature} if signature else {})}
        (ds / "scores" / s / "test.final.json").write_text(json.dumps(rec))
    config = tmp_path / "run.yaml"
    # Li et al.'s references are declared as `human`; the board shows them as `reference`
    config.write_text(
        "datasets:\n  toy:\n    systems:\n      alpha: {file: a.txt}\n      human: {file: h.txt}\n"
    )
    return ds, config


def test_the_run_table_with_its_configs_and_signature(tmp_path):
    ds, config = run_folder(tmp_path, signature="tst:0.1.0|acc:cnn")
    text = publish([ds], [config])
    assert text.startswith("# Leaderboard\n")
    assert f"- `{config.as_posix()}` {hashlib.sha256(config.read_bytes()).hexdigest()}" in text
    assert "## toy\n\nScore signature: `tst:0.1.0|acc:cnn`\n\n" + BOARD in text
    assert publish([ds], [config]) == text  # nothing but the inputs: the same run gives the same file
    ds2, config2 = run_folder(tmp_path / "unsigned")
    assert "Score signature" not in publish([ds2], [config2])


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
    """On the test suite's tiny run: every leaderboard row of the run, as the report wrote it."""
    ds = finished_run / "results" / "demo"
    assert main([str(ds), "--configfile", str(finished_run / "config.yaml")]) == 0
    out = capsys.readouterr().out
    assert (ds / "tables" / "leaderboard.md").read_text(encoding="utf-8").rstrip() in out
    rows = (ds / "tables" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) >= 8 and all(f"| {row.split(',')[1]}" in out for row in rows)
