"""Scores that say what they are (tst.signature): the one-line signature (at most 120 characters) of every score
JSON, table and `tst score` output, its hashes checked against sha256sum's on known inputs, the version in one
place, and the commit only of a clean checkout."""

import hashlib
import json
import re
import subprocess
import tomllib

import pytest
import yaml

from tst import signature
from tst.codehash import PACKAGE_DIR, code_hash
from tst.io import write_lines

# `printf 'a\tx\nb\ty\n' | sha256sum` (coreutils), computed outside Python
A_X_B_Y = "e8d47f137cab36ac7ca41fba1e478d5abc35cd74978ff8835a995b884b54502d"


def sha256sum(text: str) -> str:
    """coreutils sha256sum of the text: a second route to every hash of the signature."""
    out = subprocess.run(["sha256sum"], input=text.encode(), capture_output=True, check=True).stdout
    return out.split()[0].decode()


def test_the_hashes_are_sha256sums_of_sorted_key_tab_value_lines():
    assert signature.variants_hash({"b": "y", "a": "x"}) == A_X_B_Y[:12]
    assert signature.variants_hash({}) == "e3b0c44298fc"  # `printf '' | sha256sum`: no metric
    assert signature.variants_hash({"a": "x", "b": "z"}) != A_X_B_Y[:12]  # any variant string moves it
    shas = {"style_cnn.pt": "ab" * 32, "lm_joint.pt": "cd" * 32}
    lines = f"lm_joint.pt\t{'cd' * 32}\nstyle_cnn.pt\t{'ab' * 32}\n"
    assert signature.evaluators_hash(shas) == sha256sum(lines)[:12]
    assert signature.evaluators_hash({**shas, "lm_joint.pt": "ce" * 32}) != sha256sum(lines)[:12]
    # the default GM's form: the variants of J and its factors only, 8 hex digits
    variants = {"joint": "J v1", "style": "P(target)", "bleu_ref_corpus": "BLEU", "acceptability": "P(real)"}
    form = sha256sum("acceptability\tP(real)\njoint\tJ v1\nstyle\tP(target)\n")[:8]
    assert signature.gm_form(variants) == form
    assert signature.gm_form({**variants, "bleu_ref_corpus": "BLEU-2"}) == form  # not a part of the GM
    assert signature.gm_form({**variants, "style": "P(target), counterfactuals"}) != form
    assert signature.gm_form({"acc": "CNN"}) is None


def test_the_normalization_tag_of_a_score_files_record():
    from tst.data.normalize import normalization_record

    def tag(block):
        return signature.normalization_tag(normalization_record({"normalize": block, "from": "x"}))

    assert tag({"lowercase": True, "numbers": False}) == "ptb+lc"
    assert tag({}) == "ptb+lc"  # the schema's defaults: lowercase, numbers as they are
    assert tag({"lowercase": False, "numbers": True}) == "ptb+cased+num"
    assert tag(None) == "none"  # --no-normalize: the lines as given
    assert signature.normalization_tag(None) == "unknown"  # a score file that does not say


def test_the_line_names_every_field_in_order_in_at_most_120_characters(monkeypatch):
    monkeypatch.setattr(signature, "version", lambda: "9.9.9")
    monkeypatch.setattr(signature, "scoring_code", lambda: "c0de" * 4)
    shas = {"style_cnn.pt": "ab" * 32}
    variants = {"b": "y", "a": "x", "joint": "J"}
    sig = signature.signature(shas, variants, (60, 60, 8, 5), [0.0213456], "ptb+lc")
    form = sha256sum("joint\tJ\n")[:8]
    ev = sha256sum(f"style_cnn.pt\t{'ab' * 32}\n")[:12]
    var = sha256sum("a\tx\nb\ty\njoint\tJ\n")[:12]
    assert sig["line"] == f"tst:9.9.9|gm:{form},tJ=0.02135|norm:ptb+lc|eval:{ev}|var:{var}|code:{'c0de' * 4}"
    assert sig["gm"] == {"form": form, "t_J": 0.0213456} and sig["gm_pg_t"] == [60.0, 60.0, 8.0, 5.0]
    assert sig["n_evaluators"] == 1 and sig["evaluators"] == ev and sig["variants"] == var
    none = signature.signature({}, {}, None, None)
    assert (
        none["line"] == f"tst:9.9.9|gm:none|norm:unknown|eval:e3b0c44298fc|var:e3b0c44298fc|code:{'c0de' * 4}"
    )
    assert signature.signature({}, variants)["line"].split("|")[1] == f"gm:{form}"  # no threshold: the form
    with pytest.raises(ValueError, match="one threshold t_J"):
        signature.signature({}, {}, None, [10, 20, 30])
    # the longest fields there are: a two-digit version everywhere, every normalization flag
    monkeypatch.setattr(signature, "version", lambda: "10.10.10")
    longest = signature.signature(shas, variants, None, [0.0213456], "ptb+cased+num")["line"]
    assert len(longest) == 111 <= signature.MAX_LINE
    monkeypatch.setattr(signature, "version", lambda: "10.10.10.dev0+" + "x" * 20)
    with pytest.raises(ValueError, match=r"signature line of 13\d characters, over 120"):
        signature.signature(shas, variants, None, [0.0213456], "ptb+cased+num")
    monkeypatch.setattr(signature, "commit", lambda repo=None: "f" * 40)
    with_commit = signature.with_commit(none)
    assert with_commit["commit"] == "f" * 40 and with_commit["line"] == none["line"]


def test_a_table_signature_joins_its_score_files():
    objs = [
        {"evaluators": {"e.pt": "1" * 64}, "metrics": {"a": {"variant": "x"}, "b": {"variant": "y"}}},
        {"evaluators": {"e.pt": "1" * 64}, "metrics": {"a": {"variant": "x"}}},
    ]
    sig = signature.of_score_files(objs)
    assert sig["evaluators"] == sha256sum(f"e.pt\t{'1' * 64}\n")[:12] and sig["variants"] == A_X_B_Y[:12]
    assert sig["normalization"] == "unknown"
    objs.append({"evaluators": {"e.pt": "2" * 64}, "metrics": {}})  # a second version of the same file
    assert signature.of_score_files(objs)["evaluators"] == sha256sum(f"e.pt\t{'1' * 64}+{'2' * 64}\n")[:12]
    record = {"applied": True, "tokenize": "PTB (NLTK Treebank)", "lowercase": True, "numbers": False}
    same = [{**o, "normalization": record} for o in objs]
    assert signature.of_score_files(same)["normalization"] == "ptb+lc"
    same[0]["normalization"] = {"applied": False}
    assert signature.of_score_files(same)["normalization"] == "mixed"


def test_the_version_lives_in_one_place(repo_root):
    import tst

    pyproject = tomllib.loads((repo_root / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tst.__version__"}
    assert signature.version() == tst.__version__ and re.fullmatch(r"\d+\.\d+\.\d+", tst.__version__)
    cff = yaml.safe_load((repo_root / "CITATION.cff").read_text())
    assert cff["version"] == tst.__version__
    changelog = (repo_root / "CHANGELOG.md").read_text()
    heading = rf"^## {re.escape(tst.__version__)} \(\d{{4}}-\d\d-\d\d\)$"  # a dated release
    assert len(re.findall(heading, changelog, re.MULTILINE)) == 1


def test_scoring_code_is_the_code_hash_of_the_scoring_run_and_what_it_imports():
    """The code hash covers the room that runs a request and every room it runs (tst.scoring.*)."""
    from tst.codehash import modules_of

    assert signature.scoring_code() == code_hash(PACKAGE_DIR / "scoring" / "run.py")
    assert len(signature.scoring_code()) == 16
    rooms = {"request", "read", "compute", "evaluator_files", "memory", "write"}
    assert {f"tst.scoring.{r}" for r in rooms} <= set(modules_of(PACKAGE_DIR / "scoring" / "run.py"))


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
    from tst.scoring.request import ScoreRequest
    from tst.scoring.run import score
    from tst.scoring.write import score_meta

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
    request = ScoreRequest(
        files["sources"],
        files["outputs"],
        [0, 1],
        meta=score_meta("d", "M0.seed1", "dev", "ep1.0"),
        evaluators=tmp_path / "ev",
        only=only,
    )
    obj = score(request, json_out=tmp_path / "x.json")
    sig = json.loads((tmp_path / "x.json").read_text())["signature"]
    assert sig == obj["signature"] and "commit" not in sig  # a cached artifact: no commit
    by_hand = "".join(f"{k}\t{obj['metrics'][k]['variant']}\n" for k in sorted(obj["metrics"]))
    assert sorted(obj["metrics"]) == sorted(only)
    assert sig["variants"] == hashlib.sha256(by_hand.encode()).hexdigest()[:12]
    assert sig["evaluators"] == "e3b0c44298fc" and sig["n_evaluators"] == 0  # no evaluator file read
    assert sig["gm"] == {"form": None, "t_J": None} and sig["gm_pg_t"] is None
    assert sig["version"] == signature.version() and sig["normalization"] == "unknown"
    assert len(sig["line"]) <= 120 and sig["line"].startswith(
        f"tst:{signature.version()}|gm:none|norm:unknown|"
    )

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

    assert printed["variants"] == sig["variants"] and printed["gm_pg_t"] == list(DEFAULT_T)
    # `tst score` normalizes as the workflow does (PTB tokens, lowercased): only norm: differs
    assert printed["line"] == sig["line"].replace("|norm:unknown|", "|norm:ptb+lc|")
    assert out.err == ""  # nothing on stderr when all is well: the signature is in the JSON


@pytest.mark.slow
def test_every_table_and_score_file_of_a_run_ends_with_its_signature(finished_run):
    ds = finished_run / "results" / "demo"
    scores = [json.loads(p.read_text()) for p in sorted((ds / "scores").rglob("*.json"))]
    score = scores[0]
    for name, sha in score["evaluators"].items():
        path = ds / "evaluators" / name
        if path.is_file():
            assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    assert score["evaluators"] and score["signature"]["n_evaluators"] == len(score["evaluators"])
    lines = "".join(f"{k}\t{v}\n" for k, v in sorted(score["evaluators"].items()))
    assert score["signature"]["evaluators"] == sha256sum(lines)[:12]
    # the demo's text is normalized when prepared (lowercase, PTB tokens), and its score files say so
    assert {s["signature"]["normalization"] for s in scores} == {"ptb+lc"}
    assert all(s["signature"]["gm"]["form"] and len(s["signature"]["line"]) <= 120 for s in scores)
    tables = {t.name: t.read_text().splitlines() for t in (ds / "tables").glob("*.md")}
    full = {n: lines[-1] for n, lines in tables.items() if len(lines) > 1}  # an empty table is one line
    assert "leaderboard.md" in full and len(full) >= 5
    t_j = json.loads((ds / "validity" / "gm_thresholds.json").read_text())["t"][0]
    table_sig = signature.of_score_files(scores, None, [t_j])["line"]
    for last in full.values():  # Markdown escapes the signature's "|" as "\\|"
        assert last.replace("\\|", "|") == "- " + signature.NOTE + table_sig
    assert f",tJ={t_j:.4g}|norm:ptb+lc|" in table_sig
