"""What scoring writes and says: the score file's header (score_meta) and object (score_json), the per-sentence
TSV (write_score_tsv), the warnings on what was not scored as given (coverage_warnings) and the table of
`tst score --format text` (score_text)."""

from __future__ import annotations

import math
from pathlib import Path

from tst.io import sha256_of, write_lines
from tst.metrics.registry import METRICS, SCORE_CHARS_PER_WORD, files
from tst.names import parse_checkpoint, parse_system
from tst.scoring.compute import Scores


def score_meta(dataset: str, system: str, split: str, checkpoint: str) -> dict:
    """The header of a score file: `M0.seed1` -> variant M0, seed 1; `ep1.5` -> epoch 1.5; `final` -> None.
    An external system's variant is its name, its seed None."""
    ours = parse_system(system)
    variant, seed = ours if ours else (system, None)
    return {
        "dataset": dataset,
        "system": system,
        "variant": variant,
        "seed": seed,
        "checkpoint": checkpoint,
        "epoch": parse_checkpoint(checkpoint),
        "split": split,
    }


_SHA256: dict[tuple, str] = {}


def _sha256(path: Path) -> str:
    """sha256 of an evaluator file, computed once per file version (a job writes ~40 score files)."""
    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)
    if key not in _SHA256:
        _SHA256[key] = sha256_of(path)
    return _SHA256[key]


def output_counts(scores: Scores) -> dict:
    """Top-level counts of the score file: `n_empty` (outputs with no token, each given every metric's worst
    value) and, from the metrics' details, `n_no_usable_words` per metric that has a vocabulary or lexicon
    (outputs with tokens but none it can use; each such output got that metric's worst value)."""
    return {
        "n_empty": scores.n_empty,
        "n_no_usable_words": {
            k: r.details["n_no_usable_words"] for k, r in scores.items() if "n_no_usable_words" in r.details
        },
    }


# `tst score` warns when an evaluator reads more than this share of its tokens as <unk>. Li et al.'s Yelp references
# with their sources, normalized, read 0.4-0.9% as <unk> under the Yelp evaluators' vocabularies; the same
# references cased and detokenized as people write them, not normalized, 10-23%.
UNK_WARN = 0.05


def coverage_warnings(obj: dict) -> list[str]:
    """What a score file's counts say was not scored as given (`tst score` prints these on stderr): outputs
    without a reference (e.g. a references file with its columns swapped matches none of its sources), lines
    read as empty because they hold a control character, outputs that were empty or had no usable word or were
    truncated (each took its metric's worst value)."""
    out, n = [], obj.get("n_sentences") or 0
    have = obj.get("n_with_reference")
    if have is not None and have < n:
        out.append(
            f"only {have} of {n} outputs have a reference (references are matched on the exact source text: "
            "check that each references file is source<TAB>reference, in that order, for these sources); "
            "ref-BLEU is over those"
        )
    for path, k in (obj.get("control_lines") or {}).items():
        out.append(f"{path}: {k} line(s) with a control character (e.g. NUL) read as empty lines")
    if obj.get("n_empty"):
        out.append(f"{obj['n_empty']} of {n} outputs are empty: each takes every metric's worst value")
    unusable = {k: v for k, v in (obj.get("n_no_usable_words") or {}).items() if v}
    if unusable:
        counts = ", ".join(f"{k} {v}" for k, v in unusable.items())
        out.append(f"outputs with no word a metric can use, given its worst value: {counts}")
    for name, u in (obj.get("units") or {}).items():
        rate = u.get("unk_rate")
        if rate is not None and rate > UNK_WARN:
            top = ", ".join(f"{t} ({n})" for t, n in u.get("unk_top") or [])
            out.append(
                f"{100 * rate:.1f}% of the tokens {name} read are outside its vocabulary (<unk>; above "
                f"{100 * UNK_WARN:g}%){'; the commonest: ' + top if top else ''}: is the text normalized like "
                "the corpus (lowercased, PTB-tokenized, NER placeholders such as -PERSON- as the corpus writes "
                "them)? Its metrics read those words as unknown"
            )
    if obj.get("n_truncated"):
        files = ", ".join(f"{p}: {k}" for p, k in (obj.get("truncated_lines") or {}).items())
        out.append(
            f"{obj['n_truncated']} line(s) longer than {obj.get('max_words')} words (or "
            f"{SCORE_CHARS_PER_WORD} x as many characters) were cut and scored so ({files})"
        )
    return out


def _reads(key: str, system: str | None, options) -> str:
    """What metric `key` reads, for `tst score --format text`: its aspect and its evaluator files with this
    system name and these options (or the metrics it is derived from, or no evaluator file), and the references or
    attribute lists it needs."""
    m = METRICS.get(key)
    if m is None:
        return ""
    what = f"from {', '.join(m.derived_from)}" if m.derived else ", ".join(files(key, system, options))
    needs = [i for i in m.inputs if i != "system"]
    return f"{m.aspect}: {what or 'no evaluator file'}{' + ' + ', '.join(needs) if needs else ''}"


def score_text(obj: dict, options=None) -> str:
    """A score object as `tst score --format text` prints it: one row per metric (metric, value, 95% interval,
    direction, what it reads), values to the metric's table decimals, then the signature line."""

    def number(v, digits: int) -> str:
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"

    rows = [("metric", "value", "95% interval", "direction", "reads")]
    for key, m in obj["metrics"].items():
        digits = METRICS[key].digits if key in METRICS else 3
        ci = m.get("ci95")
        interval = f"[{number(ci[0], digits)}, {number(ci[1], digits)}]" if ci else ""
        direction = "higher" if m.get("higher_is_better", True) else "lower"
        reads = _reads(key, obj.get("system"), options)
        rows.append((key, number(m.get("score"), digits), interval, direction, reads))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [f"{r[0]:<{w[0]}}  {r[1]:>{w[1]}}  {r[2]:<{w[2]}}  {r[3]:<{w[3]}}  {r[4]}".rstrip() for r in rows]
    sig = obj.get("signature")
    lines.append(f"signature: {sig.get('line') if isinstance(sig, dict) else sig}")
    return "\n".join(lines) + "\n"


def score_json(scores: Scores, meta: dict, n_sentences: int, truncation: dict | None = None) -> dict:
    """The score-file object of docs/interfaces.md, with each used evaluator's sha256 and the skip reasons;
    truncation: the request's `max_words`, `n_truncated` and `truncated_lines` (tst.scoring.read.Reader.truncation)."""
    return {
        **meta,
        "n_sentences": n_sentences,
        **output_counts(scores),
        **(truncation or {}),
        "metrics": {k: r.to_json() for k, r in scores.items()},
        "evaluators": {name: _sha256(path) for name, path in sorted(scores.evaluators.items())},
        "units": dict(sorted(scores.units.items())),
        "skipped": dict(scores.skipped),
    }


def _cell(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return repr(float(v))


def write_score_tsv(path, scores: Scores, source_styles, resample_stats: bool = False) -> list[str]:
    """Per-sentence TSV: `i`, `source_style`, then one column per metric with per-sentence values
    (corpus-only metrics such as corpus BLEU and GM have none); empty cell = undefined. resample_stats: then
    also the per-sentence sufficient statistics of PP and corpus BLEU, one `key:stat` column each
    (tst.bootstrap.stat_columns), from which tst.bootstrap.results_from_tsv rebuilds what the bootstrap needs."""
    from tst.bootstrap import stat_columns

    n = len(source_styles)
    cols = [k for k, r in scores.items() if len(r.per_sentence) == n and n > 0]
    stats = stat_columns(scores) if resample_stats else {}
    lines = ["\t".join(["i", "source_style", *cols, *stats])]
    for i in range(n):
        lines.append(
            "\t".join(
                [str(i), str(int(source_styles[i]))]
                + [_cell(scores[k].per_sentence[i]) for k in cols]
                + [repr(v[i]) for v in stats.values()]
            )
        )
    write_lines(path, lines)
    return cols
