"""What a score was computed with, in the manner of sacreBLEU's signature: each metric of a score JSON carries
its own (`metrics.<key>.signature`), and the score JSON, every table's last footnote, the published leaderboard
(once per dataset) and `tst score`'s output carry the one line of the default GM, at most MAX_LINE characters.
Two numbers computed the same way sign alike whatever else their files hold, so two researchers can tell
whether their numbers are comparable before they compare them.

A metric's signature (metric_line), e.g. content's:

    tst:0.3.1|var:9e8d7c6b5a41|eval:1a2b3c4d5e6f|norm:ptb+lc|prec:fp32|code:3f9c0d2a61b7e4c8

- tst: the package version (tst.__version__, which pyproject.toml reads): it moves whenever the default numbers
  do (tests/test_numbers_digest.py);
- var: the first 12 hex digits of the sha256 of the variant strings of the metric's definition
  (`key<TAB>variant` lines, sorted by key): the metric and those it is computed from (definition: a derived
  metric's factors, the joint score's three factors), so any change to how it is computed (tokenizer,
  smoothing, model, thresholds) changes it;
- eval: ONE hash over the evaluator files the definition reads (classifiers, LMs, embeddings, ...; the score
  JSON's `metrics.<key>.reads`): the first 12 hex digits of the sha256 of their `name<TAB>sha256` lines,
  sorted; `none` when it reads none; each file's own sha256 stays in the score JSON (`evaluators`);
- norm: how the scored text was normalized (normalization_tag: "ptb" tokens, "lc" lowercased or "cased",
  "num" numbers as <num>; "none": lines scored as given; "unknown": the score file does not say);
- prec: the MiniLM's precision at inference (fp32 | bf16; evaluators.precision), only for a definition that
  runs it (PRECISION_KEYS: the sentence embeddings and the acceptability classifier) - the content score's
  variant does not name it;
- code: the scoring code's own hash (tst.codehash.code_hash of tst/scoring/run.py and every tst module it runs,
  metrics included): the same code gives the same hash in every clone, whatever its location, git state or
  history. Not the git commit: a score file is a cached artifact, a pure function of its inputs, params and
  code, and a commit would make two clones of the same code write different bytes.

The line (line), over the default GM's definition only (GM_KEYS: gm, J and its three factors, those the scores
hold), so that the headline number signs alike however many other metrics a file holds:

    tst:0.3.1|gm:3f9c0d2a,tJ=0.0213|norm:ptb+lc|prec:fp32|eval:1a2b3c4d5e6f|code:3f9c0d2a61b7e4c8

- gm: the default GM's form: the first 8 hex digits of the sha256 of the variant strings of its input J and its
  three factors (tst.metrics.gm.GM_PARTS, `key<TAB>variant` lines as in var:), and its one threshold t_J
  (validity/gm_thresholds.json, raised by `tst score` to its test set's bound) when the scores were read with
  one; "none" when the scores hold none of them;
- norm, code: as above; prec: the MiniLM's precision of those metrics ("none": the scores hold none);
- eval: the hash of the evaluator files those metrics read ("none": none).

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
GM_KEYS = ("gm", *GM_PARTS)  # the default GM's definition: the metrics the line covers
# The metrics that run the MiniLM at inference in evaluators.precision (tst.metrics.sbert.scoring_bf16): the
# sentence embeddings, the content score and J built on them, the acceptability classifier; a metric derived
# from one of them (the default GM) too. Their signatures name the precision (prec:), which the content score's
# and J's variants do not.
PRECISION_KEYS = frozenset({"sbert_all_minilm_l6_v2", "content", "joint", "acceptability"})


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


def definition(key: str) -> list[str]:
    """The metric `key` and those it is derived from (tst.metrics.registry: a derived metric's factors, theirs in
    turn): whose variant strings its var: hashes. An unknown key: itself."""
    from tst.metrics.registry import METRICS

    out, todo = [], [key]
    while todo:
        k = todo.pop(0)
        if k not in out:
            out.append(k)
            todo += list(METRICS[k].derived_from) if k in METRICS else []
    return out


def reads(key: str, evaluators, system: str | None = None, options=None, units=None) -> list[str]:
    """The evaluator files metric `key` read (its score JSON entry's `reads`): those the registry names for it with
    this system name and these options (tst.metrics.registry.files; a derived metric: its factors') among the
    `evaluators` the scores used, plus the dataset's BPE model when one of them read BPE pieces (`units`: the
    score JSON's)."""
    from tst.layout import BPE_MODEL
    from tst.metrics.registry import METRICS, files

    named = files(key, system, options) if key in METRICS else ()
    out = [f for f in named if f in evaluators]
    if BPE_MODEL in evaluators and any((units or {}).get(f, {}).get("units") == "bpe" for f in out):
        out.append(BPE_MODEL)
    return sorted(out)


def _runs_minilm(keys) -> bool:
    return any(d in PRECISION_KEYS for k in keys for d in definition(k))


def metric_line(key: str, obj: dict) -> str:
    """The signature of metric `key` of the score object `obj` (module doc): its definition's variants, the
    evaluator files it read (`reads`), the normalization, the MiniLM's precision when it runs it, the code."""
    metrics = obj["metrics"]
    variants = {k: str(metrics[k].get("variant", "")) for k in definition(key) if k in metrics}
    files = {f: (obj.get("evaluators") or {}).get(f, "") for f in _reads_of(key, obj)}
    fields = [
        f"tst:{version()}",
        f"var:{variants_hash(variants)}",
        f"eval:{evaluators_hash(files) if files else 'none'}",
        f"norm:{normalization_tag(obj.get('normalization'))}",
    ]
    if _runs_minilm([key]):
        fields.append(f"prec:{obj.get('precision') or 'unknown'}")
    return "|".join([*fields, f"code:{scoring_code()}"])


def _reads_of(key: str, obj: dict) -> list[str]:
    """A metric's `reads` in a score object; a file written before they were recorded: the registry's files with
    the default options, among the file's evaluators."""
    m = obj["metrics"][key]
    if "reads" in m:
        return list(m["reads"])
    return reads(key, obj.get("evaluators") or {}, obj.get("system"), None, obj.get("units"))


def signature(
    evaluators: dict[str, str],
    variants: dict[str, str],
    gm_t=None,
    gm_calibrated=None,
    normalization: str = "unknown",
    precision: str | None = None,
) -> dict:
    """The signature of the default GM's metrics computed with `evaluators` (the files they read: name ->
    sha256), of these `variants` (key -> variant string; the default GM's form is of GM_PARTS among them),
    Pang & Gimpel's thresholds gm_t (t1..t4, None: none), the default GM's threshold gm_calibrated ([t_J], None:
    none), text normalized as `normalization` (normalization_tag) and the MiniLM at `precision` (fp32 | bf16,
    named when the variants hold a metric that runs it). A dict with every field and `line`, the one-line
    form."""
    t_j = [float(x) for x in gm_calibrated] if gm_calibrated else None
    if t_j is not None and len(t_j) != 1:
        raise ValueError(f"the default GM has one threshold t_J, not {t_j}")
    sig = {
        "version": version(),
        "gm": {"form": gm_form(variants), "t_J": t_j[0] if t_j else None},
        "normalization": normalization,
        "precision": (precision or "unknown") if _runs_minilm(variants) else "none",
        "evaluators": evaluators_hash(evaluators) if evaluators else "none",
        "n_evaluators": len(evaluators),
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
            f"prec:{sig['precision']}",
            f"eval:{sig['evaluators']}",
            f"code:{sig['code']}",
        ]
    )
    if len(text) > MAX_LINE:
        raise ValueError(f"signature line of {len(text)} characters, over {MAX_LINE}: {text}")
    return text


def with_commit(sig: dict, repo: str | Path = PACKAGE_DIR.parent) -> dict:
    """The signature with the checkout's `commit` (uncached outputs only: `tst score`); the line is unchanged."""
    return {**sig, "commit": commit(repo)}


def add_metric_signatures(obj: dict, options=None) -> dict:
    """Each metric of the score object `obj` gets `reads` (the evaluator files it read: reads, with `options`,
    the request's scoring options) and `signature` (metric_line)."""
    metrics = obj["metrics"]
    for key, m in metrics.items():
        m["reads"] = reads(key, obj.get("evaluators") or {}, obj.get("system"), options, obj.get("units"))
    for key, m in metrics.items():
        m["signature"] = metric_line(key, obj)
    return obj


def of_score_files(objs: list[dict], gm_t=None, gm_calibrated=None) -> dict:
    """One signature for the default GM's scores read from many score JSONs (a table's, a dataset's): the
    metrics of GM_KEYS any of them holds, every evaluator file they read (a file with two versions counts both),
    every variant of them (a key with two variants counts both), their normalization and precision ("mixed"
    when they differ), the thresholds given."""
    evaluators: dict[str, set] = {}
    variants: dict[str, set] = {}
    norms, precisions = set(), set()
    for obj in objs:
        metrics = obj.get("metrics") or {}
        covered = [k for k in GM_KEYS if k in metrics]
        for key in covered:
            variants.setdefault(key, set()).add(str(metrics[key].get("variant", "")))
            for name in _reads_of(key, obj):
                evaluators.setdefault(name, set()).add((obj.get("evaluators") or {}).get(name, ""))
        norms.add(normalization_tag(obj.get("normalization")))
        if _runs_minilm(covered):
            precisions.add(obj.get("precision") or "unknown")
    return signature(
        {k: "+".join(sorted(v)) for k, v in evaluators.items()},
        {k: "\n".join(sorted(v)) for k, v in variants.items()},
        gm_t,
        gm_calibrated,
        _one(norms),
        _one(precisions) if precisions else None,
    )


def _one(values: set) -> str:
    return values.pop() if len(values) == 1 else "mixed" if values else "unknown"
