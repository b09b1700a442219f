"""What a score was computed with, in one line of at most MAX_LINE characters, in the manner of sacreBLEU's
signature: every score JSON (`signature`), every table's last footnote, the published leaderboard (once per
dataset) and `tst score`'s output carry it, so two researchers can tell whether their numbers are comparable
before they compare them.

    tst:0.3.0|gm:3f9c0d2a,tJ=0.0213|norm:ptb+lc|eval:1a2b3c4d5e6f|var:9e8d7c6b5a41|code:3f9c0d2a61b7e4c8

- tst: the package version (tst.__version__, which pyproject.toml reads): it moves whenever the default numbers
  do (tests/test_numbers_digest.py);
- gm: the default GM's form: the first 8 hex digits of the sha256 of the variant strings of its input J and its
  three factors (tst.metrics.gm.GM_PARTS, `key<TAB>variant` lines as in var:), and its one threshold t_J
  (validity/gm_thresholds.json, raised by `tst score` to its test set's bound) when the scores were read with
  one; "none" when the scores hold none of them;
- norm: how the scored text was normalized (normalization_tag: "ptb" tokens, "lc" lowercased or "cased",
  "num" numbers as <num>; "none": lines scored as given; "unknown": the score file does not say);
- eval: ONE hash over every evaluator file the scores read (classifiers, LMs, embeddings, ...): the first 12 hex
  digits of the sha256 of their `name<TAB>sha256` lines, sorted; each file's own sha256 stays in the score
  JSON (`evaluators`);
- var: the first 12 hex digits of the sha256 of every metric's variant string (`key<TAB>variant` lines, sorted
  by key): any change to how a metric is computed (tokenizer, smoothing, model, precision) changes it;
- code: the scoring code's own hash (tst.codehash.code_hash of tst/scoring/run.py and every tst module it runs,
  metrics included): the same code gives the same hash in every clone, whatever its location, git state or
  history. Not the git commit: a score file is a cached artifact, a pure function of its inputs, params and
  code, and a commit would make two clones of the same code write different bytes.

The signature dict holds the same fields and Pang & Gimpel's thresholds t1..t4 (`gm_pg_t`, those of GM-P&G,
which its variant string and the tables' notes name). `tst score`, whose output is not cached, adds `commit` to
the dict (the checkout's HEAD when its tracked files are unchanged, else "unknown"); the line stays the same, so
the workflow's score and `tst score`'s of the same code, evaluators and text sign alike.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from tst.codehash import PACKAGE_DIR, code_hash
from tst.metrics.gm import GM_PARTS

MAX_LINE = 120  # characters of the one-line form, at most
NOTE = "Signature (tst.signature): "  # every table's last footnote: NOTE + the line (tst.report.build)
DIGITS = 12  # hex digits kept of the evaluators' and the variants' hashes
GM_DIGITS = 8  # hex digits kept of the default GM's form


def version() -> str:
    """The package version: tst.__version__ (pyproject.toml reads it from there, so the code that computes a
    score names its own version, installed or not)."""
    import tst

    return tst.__version__


def scoring_code() -> str:
    """The hash of the scoring code: tst/scoring/run.py and every tst module it runs (tst.codehash)."""
    return code_hash(PACKAGE_DIR / "scoring" / "run.py")


def lines_hash(lines: dict[str, str], digits: int = DIGITS) -> str:
    """sha256 (first `digits` hex digits) of `key<TAB>value<LF>` per entry, sorted by key."""
    text = "".join(f"{k}\t{v}\n" for k, v in sorted(lines.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:digits]


def variants_hash(variants: dict[str, str]) -> str:
    """The var: field: lines_hash of key -> variant string."""
    return lines_hash(variants)


def evaluators_hash(evaluators: dict[str, str]) -> str:
    """The eval: field: lines_hash of file name -> its sha256 (several versions of one file: "+"-joined)."""
    return lines_hash(evaluators)


def gm_form(variants: dict[str, str]) -> str | None:
    """The default GM's form: lines_hash (GM_DIGITS) of the variant strings of its parts (GM_PARTS) among
    `variants`; None when none of them is there."""
    parts = {k: v for k, v in variants.items() if k in GM_PARTS}
    return lines_hash(parts, GM_DIGITS) if parts else None


def normalization_tag(record: dict | None) -> str:
    """The norm: field of a score JSON's `normalization` record (tst.data.normalize.normalization_record)."""
    if not record:
        return "unknown"
    if not record.get("applied"):
        return "none"
    parts = ["ptb"] if str(record.get("tokenize", "")).startswith("PTB") else []
    parts.append("lc" if record.get("lowercase", True) else "cased")
    if record.get("numbers"):
        parts.append("num")
    return "+".join(parts)


def commit(repo: str | Path = PACKAGE_DIR.parent) -> str:
    """The git commit of the checkout `repo` when its tracked files are unchanged; "unknown" when they are
    changed, or it is no git checkout, or git is absent."""
    try:
        head, dirty = (
            subprocess.run(
                args, cwd=repo, capture_output=True, text=True, timeout=20, check=True
            ).stdout.strip()
            for args in (
                ["git", "rev-parse", "HEAD"],
                ["git", "status", "--porcelain", "--untracked-files=no"],
            )
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return "unknown" if dirty or not head else head


def signature(
    evaluators: dict[str, str],
    variants: dict[str, str],
    gm_t=None,
    gm_calibrated=None,
    normalization: str = "unknown",
) -> dict:
    """The signature of scores computed with `evaluators` (file name -> sha256), metrics of these `variants`
    (key -> variant string), Pang & Gimpel's thresholds gm_t (t1..t4, None: none), the default GM's threshold
    gm_calibrated ([t_J], None: none) and text normalized as `normalization` (normalization_tag). A dict with
    every field and `line`, the one-line form."""
    t_j = [float(x) for x in gm_calibrated] if gm_calibrated else None
    if t_j is not None and len(t_j) != 1:
        raise ValueError(f"the default GM has one threshold t_J, not {t_j}")
    sig = {
        "version": version(),
        "gm": {"form": gm_form(variants), "t_J": t_j[0] if t_j else None},
        "normalization": normalization,
        "evaluators": evaluators_hash(evaluators),
        "n_evaluators": len(evaluators),
        "variants": variants_hash(variants),
        "code": scoring_code(),
        "gm_pg_t": [float(x) for x in gm_t] if gm_t else None,
    }
    return {**sig, "line": line(sig)}


def line(sig: dict) -> str:
    """The one-line form of a signature dict (module doc); ValueError when it would be over MAX_LINE."""
    form, t_j = sig["gm"]["form"], sig["gm"]["t_J"]
    gm = "none" if form is None else form + ("" if t_j is None else f",tJ={t_j:.4g}")
    text = "|".join(
        [
            f"tst:{sig['version']}",
            f"gm:{gm}",
            f"norm:{sig['normalization']}",
            f"eval:{sig['evaluators']}",
            f"var:{sig['variants']}",
            f"code:{sig['code']}",
        ]
    )
    if len(text) > MAX_LINE:
        raise ValueError(f"signature line of {len(text)} characters, over {MAX_LINE}: {text}")
    return text


def with_commit(sig: dict, repo: str | Path = PACKAGE_DIR.parent) -> dict:
    """The signature with the checkout's `commit` (uncached outputs only: `tst score`); the line is unchanged."""
    return {**sig, "commit": commit(repo)}


def of_score_files(objs: list[dict], gm_t=None, gm_calibrated=None) -> dict:
    """One signature for scores read from many score JSONs (a table's, a dataset's): every evaluator file any of
    them used (a file with two versions counts both), every metric variant any of them holds (a key with two
    variants counts both), their normalization ("mixed" when they differ), the thresholds given."""
    evaluators: dict[str, set] = {}
    variants: dict[str, set] = {}
    norms = set()
    for obj in objs:
        for name, sha in (obj.get("evaluators") or {}).items():
            evaluators.setdefault(name, set()).add(sha)
        for key, m in (obj.get("metrics") or {}).items():
            variants.setdefault(key, set()).add(str(m.get("variant", "")))
        norms.add(normalization_tag(obj.get("normalization")))
    return signature(
        {k: "+".join(sorted(v)) for k, v in evaluators.items()},
        {k: "\n".join(sorted(v)) for k, v in variants.items()},
        gm_t,
        gm_calibrated,
        norms.pop() if len(norms) == 1 else "mixed" if norms else "unknown",
    )
