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
    sig = signature.signature(shas, variants, (60, 60, 8, 5), [0.0213456], "ptb+lc", "fp32")
    form = sha256sum("joint\tJ\n")[:8]
    ev = sha256sum(f"style_cnn.pt\t{'ab' * 32}\n")[:12]
    assert sig["line"] == f"tst:9.9.9|gm:{form},tJ=0.02135|norm:ptb+lc|prec:fp32|eval:{ev}|code:{'c0de' * 4}"
    assert sig["gm"] == {"form": form, "t_J": 0.0213456} and sig["gm_pg_t"] == [60.0, 60.0, 8.0, 5.0]
    assert sig["n_evaluators"] == 1 and sig["evaluators"] == ev and sig["precision"] == "fp32"
    none = signature.signature({}, {}, None, None)
    assert none["line"] == f"tst:9.9.9|gm:none|norm:unknown|prec:none|eval:none|code:{'c0de' * 4}"
    assert signature.signature({}, variants)["line"].split("|")[1] == f"gm:{form}"  # no threshold: the form
    # the precision is named only where a metric runs the MiniLM (J: its content factor's embeddings)
    assert signature.signature({}, {"a": "x"}, precision="bf16")["precision"] == "none"
    assert signature.signature({}, {"joint": "J"}, precision="bf16")["precision"] == "bf16"
    with pytest.raises(ValueError, match="one threshold t_J"):
        signature.signature({}, {}, None, [10, 20, 30])
    # the longest fields there are: a two-digit version everywhere, every normalization flag, `unknown`
    monkeypatch.setattr(signature, "version", lambda: "10.10.10")
    longest = signature.signature(shas, variants, None, [0.0213456], "ptb+cased+num")["line"]
    assert "|prec:unknown|" in longest and len(longest) == 107 <= signature.MAX_LINE
    monkeypatch.setattr(signature, "version", lambda: "10.10.10.dev0+" + "x" * 10)
    with pytest.raises(ValueError, match=r"signature line of 123 characters, over 120"):
        signature.signature(shas, variants, None, [0.0213456], "ptb+cased+num")
    monkeypatch.setattr(signature, "commit", lambda repo=None: "f" * 40)
    with_commit = signature.with_commit(none)
    assert with_commit["commit"] == "f" * 40 and with_commit["line"] == none["line"]


RECORD = {"applied": True, "tokenize": "PTB (NLTK Treebank)", "lowercase": True, "numbers": False}


def score_object(metrics: dict, evaluators: dict, precision="fp32") -> dict:
    """A score object as tst.scoring.run.score writes it: metrics with their variants and `reads`."""
    return {
        "system": "M0.seed1",
        "metrics": {k: {"score": 0.5, "variant": v, "reads": r} for k, (v, r) in metrics.items()},
        "evaluators": evaluators,
        "normalization": RECORD,
        "precision": precision,
    }


def test_each_metric_signs_its_own_definition_files_normalization_and_precision(monkeypatch):
    """A metric's signature: the variants of the metric and those it is derived from, the evaluator files it read,
    the normalization, the precision where it runs the MiniLM: the same metric in two files that hold different
    other metrics signs alike."""
    monkeypatch.setattr(signature, "version", lambda: "9.9.9")
    monkeypatch.setattr(signature, "scoring_code", lambda: "c0de" * 4)
    shas = {"acceptability.pt": "a" * 64, "style_minilm.pt": "b" * 64, "lm_joint.pt": "c" * 64}
    metrics = {
        "joint": ("J v1", ["acceptability.pt", "style_minilm.pt"]),
        "gm": ("GM, t_J = 0.02", ["acceptability.pt", "style_minilm.pt"]),
        "bleu_self_corpus": ("BLEU", []),
        "pp_joint": ("PP", ["lm_joint.pt"]),
    }
    obj = score_object(metrics, shas)
    code = "c0de" * 4
    files = sha256sum(f"acceptability.pt\t{'a' * 64}\nstyle_minilm.pt\t{'b' * 64}\n")[:12]
    assert signature.definition("gm") == ["gm", "joint"] and signature.definition("joint") == ["joint"]
    gm_var = sha256sum("gm\tGM, t_J = 0.02\njoint\tJ v1\n")[:12]
    assert signature.metric_line("gm", obj) == (
        f"tst:9.9.9|var:{gm_var}|eval:{files}|norm:ptb+lc|prec:fp32|code:{code}"
    )
    bleu_var = sha256sum("bleu_self_corpus\tBLEU\n")[:12]
    assert signature.metric_line("bleu_self_corpus", obj) == (
        f"tst:9.9.9|var:{bleu_var}|eval:none|norm:ptb+lc|code:{code}"
    )
    pp = "eval:" + sha256sum("lm_joint.pt\t" + "c" * 64 + "\n")[:12]
    assert pp in signature.metric_line("pp_joint", obj) and "prec:" not in signature.metric_line(
        "pp_joint", obj
    )
    fewer = score_object({k: metrics[k] for k in ("joint", "gm")}, {k: shas[k] for k in list(shas)[:2]})
    for key in ("joint", "gm"):
        assert signature.metric_line(key, fewer) == signature.metric_line(key, obj)
    assert signature.metric_line("gm", score_object(metrics, shas, "bf16")) != signature.metric_line(
        "gm", obj
    )
    assert signature.metric_line("bleu_self_corpus", score_object(metrics, shas, "bf16")) == (
        signature.metric_line("bleu_self_corpus", obj)
    )
    # the line: the default GM's metrics only, whatever else the files hold
    assert signature.of_score_files([obj])["line"] == signature.of_score_files([fewer])["line"]
    assert f"|prec:fp32|eval:{files}|" in signature.of_score_files([obj])["line"]
    moved = score_object({**metrics, "pp_joint": ("PP, <eos> not counted", ["lm_joint.pt"])}, shas)
    assert signature.of_score_files([moved])["line"] == signature.of_score_files([obj])["line"]
    assert signature.metric_line("pp_joint", moved) != signature.metric_line("pp_joint", obj)


def test_a_metric_reads_the_files_the_registry_names_for_it():
    from tst.metrics.registry import files

    used = {
        f: "0" * 64 for f in ("style_minilm.pt", "acceptability.pt", "lm_joint.pt", "glove.kv", "bpe.model")
    }
    assert signature.reads("gm", used) == sorted(files("joint")) == ["acceptability.pt", "style_minilm.pt"]
    assert signature.reads("bleu_self_corpus", used) == []
    assert signature.reads("pp_joint", used) == ["lm_joint.pt"]
    pieces = {"lm_joint.pt": {"units": "bpe"}}
    assert signature.reads("pp_joint", used, units=pieces) == ["bpe.model", "lm_joint.pt"]
    assert signature.reads("pp_joint", {}, units=pieces) == []  # not used: not read


def test_a_table_signature_joins_its_score_files():
    shas = {"acceptability.pt": "1" * 64, "lm_joint.pt": "3" * 64}
    objs = [
        score_object(
            {"acceptability": ("P(real)", ["acceptability.pt"]), "pp_joint": ("PP", ["lm_joint.pt"])}, shas
        ),
        score_object({"acceptability": ("P(real)", ["acceptability.pt"])}, shas),
    ]
    sig = signature.of_score_files(objs)
    assert sig["evaluators"] == sha256sum(f"acceptability.pt\t{'1' * 64}\n")[:12] and sig["n_evaluators"] == 1
    assert sig["normalization"] == "ptb+lc" and sig["precision"] == "fp32"
    assert sig["gm"]["form"] == sha256sum("acceptability\tP(real)\n")[:8]
    objs.append(
        score_object({"acceptability": ("P(real)", ["acceptability.pt"])}, {"acceptability.pt": "2" * 64})
    )
    two = sha256sum(f"acceptability.pt\t{'1' * 64}+{'2' * 64}\n")[:12]  # a second version of the same file
    assert signature.of_score_files(objs)["evaluators"] == two
    objs[0]["normalization"] = {"applied": False}
    objs[1]["precision"] = "bf16"
    mixed = signature.of_score_files(objs)
    assert mixed["normalization"] == "mixed" and mixed["precision"] == "mixed"
    assert signature.of_score_files([])["line"].split("|")[1:5] == [
        "gm:none",
        "norm:unknown",
        "prec:none",
        "eval:none",
    ]


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
    assert sorted(obj["metrics"]) == sorted(only)
    for key, m in obj["metrics"].items():  # each metric's own: its variant, no evaluator file, no MiniLM
        var = hashlib.sha256(f"{key}\t{m['variant']}\n".encode()).hexdigest()[:12]
        assert m["reads"] == []
        assert m["signature"] == (
            f"tst:{signature.version()}|var:{var}|eval:none|norm:unknown|code:{signature.scoring_code()}"
        )
    assert sig["evaluators"] == "none" and sig["n_evaluators"] == 0  # no evaluator file read
    assert sig["gm"] == {"form": None, "t_J": None} and sig["gm_pg_t"] is None and sig["precision"] == "none"
    assert sig["version"] == signature.version() and sig["normalization"] == "unknown"
    assert len(sig["line"]) <= 120 and sig["line"].startswith(
        f"tst:{signature.version()}|gm:none|norm:unknown|prec:none|eval:none|"
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

    assert printed["gm_pg_t"] == list(DEFAULT_T)
    # `tst score` normalizes as the workflow does (PTB tokens, lowercased): only norm: differs
    assert printed["line"] == sig["line"].replace("|norm:unknown|", "|norm:ptb+lc|")
    cli = json.loads(out.out)["metrics"]
    for key, m in obj["metrics"].items():
        assert cli[key]["signature"] == m["signature"].replace("|norm:unknown|", "|norm:ptb+lc|")
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
    # the line's eval: the files the default GM's metrics read, each metric's own eval: those it read
    gm_reads = {f for k in signature.GM_KEYS if k in score["metrics"] for f in score["metrics"][k]["reads"]}
    assert gm_reads == {"acceptability.pt", "style_minilm.pt"} < set(score["evaluators"])
    assert score["signature"]["n_evaluators"] == len(gm_reads)
    lines = "".join(f"{k}\t{score['evaluators'][k]}\n" for k in sorted(gm_reads))
    assert score["signature"]["evaluators"] == sha256sum(lines)[:12]
    pp = score["metrics"]["pp_joint"]
    assert pp["reads"] == ["lm_joint.pt"]
    lm = sha256sum("lm_joint.pt\t" + score["evaluators"]["lm_joint.pt"] + "\n")[:12]
    assert f"|eval:{lm}|" in pp["signature"]
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
