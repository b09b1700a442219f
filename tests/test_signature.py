"""Scores that say what they are (tst.signature): the one-line signature of every score JSON, table and
`tst score` output (its JSON), its hashes checked against sha256sum's on known inputs, and the commit only of a clean
checkout."""

import json
import subprocess
import tomllib
from importlib.metadata import version as dist_version

import pytest
import yaml

from tst import signature
from tst.codehash import PACKAGE_DIR, code_hash
from tst.io import write_lines

# `printf 'a\tx\nb\ty\n' | sha256sum` (coreutils), computed outside Python
A_X_B_Y = "e8d47f137cab36ac7ca41fba1e478d5abc35cd74978ff8835a995b884b54502d"


def test_variants_hash_is_the_sha256_of_the_sorted_key_tab_variant_lines():
    assert signature.variants_hash({"b": "y", "a": "x"}) == A_X_B_Y[:12]
    # `printf '' | sha256sum`: no metric
    assert signature.variants_hash({}) == "e3b0c44298fc"
    assert signature.variants_hash({"a": "x", "b": "z"}) != A_X_B_Y[:12]  # any variant string moves it


def test_the_line_names_every_field_in_order(monkeypatch):
    monkeypatch.setattr(signature, "version", lambda: "9.9.9")
    monkeypatch.setattr(signature, "scoring_code", lambda: "c0de")
    full = "ab" * 32
    sig = signature.signature(
        {"style_cnn.pt": full, "lm_joint.pt": "cd" * 32}, {"b": "y", "a": "x"}, (60, 60, 8, 5)
    )
    assert sig["evaluators"] == {"lm_joint.pt": "cd" * 6, "style_cnn.pt": "ab" * 6}
    assert sig["line"] == (
        "tst:9.9.9|code:c0de|eval:lm_joint.pt=cdcdcdcdcdcd,style_cnn.pt=abababababab|gm:60,60,8,5|gm_cal:none"
        f"|variants:{A_X_B_Y[:12]}"
    )
    none = signature.signature({}, {}, None, None)
    assert none["line"] == "tst:9.9.9|code:c0de|eval:none|gm:none|gm_cal:none|variants:e3b0c44298fc"
    assert signature.signature({}, {}, (1, 2, 3.5, 4), [10.25, 20, 30])["line"].split("|")[3:5] == [
        "gm:1,2,3.5,4",
        "gm_cal:10.25,20,30",
    ]
    monkeypatch.setattr(signature, "commit", lambda repo=None: "f" * 40)
    with_commit = signature.with_commit(none)
    assert with_commit["commit"] == "f" * 40
    assert with_commit["line"].split("|")[:3] == ["tst:9.9.9", "code:c0de", "commit:" + "f" * 40]


def test_a_table_signature_joins_its_score_files():
    objs = [
        {"evaluators": {"e.pt": "1" * 64}, "metrics": {"a": {"variant": "x"}, "b": {"variant": "y"}}},
        {"evaluators": {"e.pt": "1" * 64}, "metrics": {"a": {"variant": "x"}}},
    ]
    sig = signature.of_score_files(objs)
    assert sig["evaluators"] == {"e.pt": "1" * 12} and sig["variants"] == A_X_B_Y[:12]
    objs.append({"evaluators": {"e.pt": "2" * 64}, "metrics": {}})  # a second version of the same file
    assert signature.of_score_files(objs)["evaluators"] == {"e.pt": "1" * 12 + "+" + "2" * 12}


def test_version_is_the_installed_packages_and_the_releases(repo_root):
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    assert project["version"] == "0.2.0"
    assert signature.version() == dist_version("tst-pipeline"), "a stale install: make install"
    assert signature.version() == project["version"], "installed from another version: make install"
    import tst

    assert tst.__version__ == signature.version()
    cff = yaml.safe_load((repo_root / "CITATION.cff").read_text())
    assert cff["version"] == project["version"]
    assert (repo_root / "CHANGELOG.md").read_text().count(f"## {project['version']}") == 1


def test_scoring_code_is_the_code_hash_of_tst_score():
    assert signature.scoring_code() == code_hash(PACKAGE_DIR / "score.py")
    assert len(signature.scoring_code()) == 16


def _git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def test_commit_only_of_a_clean_checkout(tmp_path):
    assert signature.commit(tmp_path) == "unknown"  # no git checkout
    _git(tmp_path, "init", "-q")
    assert signature.commit(tmp_path) == "unknown"  # no commit yet
    (tmp_path / "f.txt").write_text("one\n")
    _git(tmp_path, "add", "f.txt")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = _git(tmp_path, "rev-parse", "HEAD")
    assert signature.commit(tmp_path) == head and len(head) == 40
    (tmp_path / "new.txt").write_text("untracked files do not count\n")
    assert signature.commit(tmp_path) == head
    (tmp_path / "f.txt").write_text("two\n")  # a tracked file changed: the code is not that commit's
    assert signature.commit(tmp_path) == "unknown"


def test_score_json_and_tst_score_carry_it(tmp_path, capsys):
    from tst.cli import main
    from tst.score import score_files, score_meta

    write_lines(tmp_path / "s.0.txt", ["the food was bad"])
    write_lines(tmp_path / "s.1.txt", ["the food was good"])
    write_lines(tmp_path / "o.0.txt", ["the food was good"])
    write_lines(tmp_path / "o.1.txt", ["the food was bad"])
    files = {
        "sources": [tmp_path / "s.0.txt", tmp_path / "s.1.txt"],
        "outputs": [tmp_path / "o.0.txt", tmp_path / "o.1.txt"],
    }
    only = ["bleu_self_corpus", "bleu_self_sentence"]
    (tmp_path / "ev").mkdir()
    obj = score_files(
        tmp_path / "ev",
        files["sources"],
        files["outputs"],
        [0, 1],
        meta=score_meta("d", "M0.seed1", "dev", "ep1.0"),
        only=only,
        json_out=tmp_path / "x.json",
    )
    sig = json.loads((tmp_path / "x.json").read_text())["signature"]
    assert sig == obj["signature"] and "commit" not in sig  # a cached artifact: no commit
    by_hand = "".join(f"{k}\t{obj['metrics'][k]['variant']}\n" for k in sorted(obj["metrics"]))
    assert sorted(obj["metrics"]) == sorted(only)
    import hashlib

    assert sig["variants"] == hashlib.sha256(by_hand.encode()).hexdigest()[:12]
    assert sig["evaluators"] == {} and sig["gm_t"] is None and sig["version"] == signature.version()

    main(
        [
            "score",
            "--dataset-dir",
            str(tmp_path / "ev"),
            "--evaluators-dir",
            str(tmp_path / "ev"),
            "--metrics",
            *only,
        ]
        + ["--sources", *map(str, files["sources"]), "--outputs", *map(str, files["outputs"])]
        + ["--json", str(tmp_path / "cli.json")]
    )
    out = capsys.readouterr()
    printed = json.loads(out.out)["signature"]
    assert printed == json.loads((tmp_path / "cli.json").read_text())["signature"]
    assert printed["commit"] == signature.commit()
    from tst.metrics.gm import DEFAULT_T

    assert printed["variants"] == sig["variants"] and printed["gm_t"] == list(DEFAULT_T)
    assert out.err == ""  # nothing on stderr when all is well: the signature is in the JSON


@pytest.mark.slow
def test_every_table_and_score_file_of_a_run_ends_with_its_signature(finished_run):
    import hashlib

    ds = finished_run / "results" / "demo"
    score = json.loads(next((ds / "scores").rglob("*.json")).read_text())
    for name, short in score["signature"]["evaluators"].items():
        path = ds / "evaluators" / name
        if path.is_file():
            assert hashlib.sha256(path.read_bytes()).hexdigest()[:12] == short
    assert score["signature"]["evaluators"]
    tables = {t.name: t.read_text().splitlines() for t in (ds / "tables").glob("*.md")}
    full = {n: lines[-1] for n, lines in tables.items() if len(lines) > 1}  # an empty table is one line
    assert "leaderboard.md" in full and len(full) >= 5
    for last in full.values():  # Markdown escapes the signature's "|" as "\\|"
        assert last.replace("\\|", "|").startswith(
            f"- Signature (tst.signature): tst:{signature.version()}|code:"
        )
