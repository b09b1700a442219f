"""The version moves with the demo's default numbers (tst.numbers_digest): the tiny run's default GM and factors
digest to the one tests/data/numbers_digest.json records for this version.

When test_the_tiny_runs_default_numbers_are_this_versions fails, the default numbers moved: bump the version
(tst/__init__.py, CITATION.cff, a CHANGELOG.md section) and record the new digest with
`python -m tst.numbers_digest --write` (it runs the tiny config; `--run DIR` reads a finished one instead)."""

import json
import subprocess

import pytest

from tst import numbers_digest as nd
from tst import signature

BOARD = (
    "rank_by,system,kind,seed,checkpoint,gm,gm_lo,style,content,acceptability,acc\n"
    "gm,reference,references,,final,30.85654,26.5,0.7177225,0.4830330,0.5607149,0.825\n"
    "gm,M0.seed1,ours,1.0,ep0.5,0.0,0.0,0.50622704,,0.34015628,0.6125\n"
)
# the canonical JSON of BOARD's numbers, written out by hand: KEYS rounded to 3 decimals, keys sorted
CANONICAL = (
    '{"systems":{"M0.seed1@ep0.5":{"acceptability":0.34,"content":null,"gm":0.0,"style":0.506},'
    '"reference@final":{"acceptability":0.561,"content":0.483,"gm":30.857,"style":0.718}},"t_J":0.222}'
)


def dataset_folder(tmp_path):
    ds = tmp_path / "results" / "demo"
    (ds / "tables").mkdir(parents=True)
    (ds / "validity").mkdir()
    (ds / "tables" / "leaderboard.csv").write_text(BOARD, encoding="utf-8")
    (ds / "validity" / "gm_thresholds.json").write_text(json.dumps({"t": [0.2224184], "keys": ["joint"]}))
    return ds


def test_the_digest_is_the_sha256_of_the_rounded_numbers_canonical_json(tmp_path):
    values = nd.numbers(dataset_folder(tmp_path))
    assert json.dumps(values, sort_keys=True, separators=(",", ":")) == CANONICAL
    by_sha256sum = subprocess.run(
        ["sha256sum"], input=CANONICAL.encode(), capture_output=True, check=True
    ).stdout.split()[0]
    assert nd.digest(values) == by_sha256sum.decode()
    values["systems"]["reference@final"]["style"] = 0.719  # one factor one step off: another digest
    assert nd.digest(values) != by_sha256sum.decode()


def test_a_recorded_version_keeps_its_digest(tmp_path, capsys):
    path = tmp_path / "digest.json"
    nd.record("0.10.0", "c" * 64, path)
    nd.record("0.9.1", "b" * 64, path)
    assert list(json.loads(path.read_text())) == ["0.9.1", "0.10.0"]  # in version order, not text order
    nd.record("0.9.1", "b" * 64, path)  # the same numbers again: nothing to refuse
    with pytest.raises(ValueError, match=r"numbers that move need a new version"):
        nd.record("0.9.1", "d" * 64, path)
    assert nd.recorded(path)["0.9.1"] == "b" * 64
    assert nd.record("0.9.1", "d" * 64, path, replace=True)["0.9.1"] == "d" * 64


def test_this_version_has_a_recorded_digest():
    assert signature.version() in nd.recorded(), (
        f"no digest of the demo's default numbers for {signature.version()} in tests/data/numbers_digest.json: "
        "python -m tst.numbers_digest --write"
    )


@pytest.mark.slow
def test_the_tiny_runs_default_numbers_are_this_versions(finished_run):
    values = nd.numbers(finished_run / "results" / "demo")
    assert len(values["systems"]) >= 8 and any(v["gm"] for v in values["systems"].values())
    assert nd.digest(values) == nd.recorded().get(signature.version()), (
        f"the demo's default numbers moved and the version ({signature.version()}) did not: bump it "
        "(tst/__init__.py, CITATION.cff, CHANGELOG.md), then `python -m tst.numbers_digest --write --run "
        f"{finished_run}`. The numbers: {json.dumps(values, sort_keys=True)}"
    )
