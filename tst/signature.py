"""What a score was computed with, in one line, in the manner of sacreBLEU's signature: every score JSON
(`signature`), every table's last footnote and `tst score`'s output carry it, so two researchers can tell
whether their numbers are comparable before they compare them.

    tst:0.2.0|code:3f9c0d2a61b7e4c8|eval:classifier.pt=1a2b3c4d5e6f,...|gm:t1,t2,t3,t4|gm_cal:none|variants:9e8d7c6b5a41

- tst: the package version (importlib.metadata: the installed tst-pipeline's);
- code: the scoring code's own hash (tst.codehash.code_hash of tst/score.py and every tst module it runs,
  metrics included): the same code gives the same hash in every clone, whatever its location, git state or
  history. Not the git commit: a score file is a cached artifact, a pure function of its inputs, params and
  code, and a commit would make two clones of the same code write different bytes (and a dirty or absent
  checkout has no commit to name). `tst score`, whose output is not cached, adds `commit`: the checkout's
  HEAD when its tracked files are unchanged, else "unknown";
- eval: each evaluator file the scores read (classifiers, LMs, embeddings, ...), with its sha256's first 12
  hex digits (a table over score files that read two versions of one file lists both, joined by "+");
- gm / gm_cal: the GM thresholds t1..t4 (score.gm_t) and the calibrated GM's t1..t3 (validity/gm_thresholds.json),
  "none" where the scores hold no GM;
- variants: the first 12 hex digits of the sha256 of every metric's variant string (`key<TAB>variant` lines,
  sorted by key): any change to how a metric is computed (tokenizer, smoothing, model, precision) changes it.
"""

from __future__ import annotations

import hashlib
import subprocess
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version
from pathlib import Path

from tst.codehash import PACKAGE_DIR, code_hash

DISTRIBUTION = "tst-pipeline"
DIGITS = 12  # hex digits kept of each sha256 (evaluator files, variant strings)


def version() -> str:
    """The installed package's version (pyproject.toml's, as pip installed it); "unknown" when tst runs from
    a folder that was never installed."""
    try:
        return _dist_version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


def scoring_code() -> str:
    """The hash of the scoring code: tst/score.py and every tst module it runs (tst.codehash)."""
    return code_hash(PACKAGE_DIR / "score.py")


def variants_hash(variants: dict[str, str]) -> str:
    """sha256 (first DIGITS hex digits) of `key<TAB>variant<LF>` per metric, sorted by key."""
    text = "".join(f"{k}\t{v}\n" for k, v in sorted(variants.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGITS]


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


def _numbers(t) -> str:
    return ",".join(f"{float(x):g}" for x in t) if t else "none"


def signature(evaluators: dict[str, str], variants: dict[str, str], gm_t=None, gm_calibrated=None) -> dict:
    """The signature of scores computed with `evaluators` (file name -> sha256), metrics of these `variants`
    (key -> variant string), GM thresholds gm_t (t1..t4, None: no GM) and the calibrated GM's thresholds
    (t1..t3, None: none). A dict with every field and `line`, the one-line form."""
    sig = {
        "version": version(),
        "code": scoring_code(),
        "evaluators": {
            name: "+".join(part[:DIGITS] for part in sha.split("+"))
            for name, sha in sorted(evaluators.items())
        },
        "gm_t": [float(x) for x in gm_t] if gm_t else None,
        "gm_calibrated_t": [float(x) for x in gm_calibrated] if gm_calibrated else None,
        "variants": variants_hash(variants),
    }
    return {**sig, "line": line(sig)}


def line(sig: dict) -> str:
    """The one-line form of a signature dict (its `commit` second when it has one)."""
    evals = ",".join(f"{name}={sha}" for name, sha in sig["evaluators"].items()) or "none"
    parts = [f"tst:{sig['version']}", f"code:{sig['code']}"]
    if sig.get("commit"):
        parts.append(f"commit:{sig['commit']}")
    parts += [
        f"eval:{evals}",
        f"gm:{_numbers(sig['gm_t'])}",
        f"gm_cal:{_numbers(sig['gm_calibrated_t'])}",
        f"variants:{sig['variants']}",
    ]
    return "|".join(parts)


def with_commit(sig: dict, repo: str | Path = PACKAGE_DIR.parent) -> dict:
    """The signature with the checkout's `commit` (uncached outputs only: `tst score`)."""
    out = {k: v for k, v in sig.items() if k != "line"}
    out["commit"] = commit(repo)
    return {**out, "line": line(out)}


def of_score_files(objs: list[dict], gm_t=None, gm_calibrated=None) -> dict:
    """One signature for scores read from many score JSONs (a table's): every evaluator file any of them used,
    every metric variant any of them holds (a key with two variants counts both), the thresholds given."""
    evaluators: dict[str, set] = {}
    variants: dict[str, set] = {}
    for obj in objs:
        for name, sha in (obj.get("evaluators") or {}).items():
            evaluators.setdefault(name, set()).add(sha)
        for key, m in (obj.get("metrics") or {}).items():
            variants.setdefault(key, set()).add(str(m.get("variant", "")))
    return signature(
        {k: "+".join(sorted(v)) for k, v in evaluators.items()},
        {k: "\n".join(sorted(v)) for k, v in variants.items()},
        gm_t,
        gm_calibrated,
    )
