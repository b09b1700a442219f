"""Score one system's transfers in files with every metric of the registry (tst.metrics.registry) whose
evaluator is available; write JSON + TSV.

score_files: files in, score JSON out (what `tst score` and the workflow's score script run): the input files
read (one encoding policy, lines cut to max_words, normalized on request), tst.scoring.score_system on the
aligned lists (computing: one loop over the registry's computed metrics), the score file written. Derived
metrics (GM) are added from the stored corpus scores by tst.metrics.registry.add_derived (by score_files when
given gm_t, and by the report with the config's t, so that changing t reloads no evaluator).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

from tst import signature
from tst.data.normalize import normalization_record, scoring_normalizer
from tst.io import (
    InputError,
    has_control,
    parse_jsonl,
    read_lines_counted,
    sha256_of,
    write_json,
    write_lines,
)
from tst.metrics.bleu import read_references
from tst.metrics.gm import for_test_set
from tst.metrics.registry import (
    METRICS,
    SCORE_CHARS_PER_WORD,
    ScoreOptions,
    add_derived,
    check_keys,
    files,
)
from tst.names import parse_checkpoint, parse_system
from tst.scoring import Evaluators, Scores, score_system

log = logging.getLogger(__name__)

__all__ = [
    "Evaluators",
    "InputError",
    "Scores",
    "add_derived",
    "score_files",
    "score_json",
    "score_meta",
    "score_system",
    "write_score_json",
    "write_score_tsv",
]


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
    truncation: score_files' `max_words`, `n_truncated` and `truncated_lines` (_Reader.truncation)."""
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


def write_score_json(
    path, scores: Scores, meta: dict, n_sentences: int, truncation: dict | None = None
) -> dict:
    obj = score_json(scores, meta, n_sentences, truncation)
    write_json(path, obj)
    return obj


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


def cut_words(line: str, max_words: int | None) -> str | None:
    """`line` cut to its first max_words tokens (split on whitespace, joined by one space) and then to
    SCORE_CHARS_PER_WORD x max_words characters, or None when it is within both (or max_words is None)."""
    if max_words is None:
        return None
    tokens = line.split(maxsplit=max_words)
    too_many = len(tokens) > max_words
    cut = " ".join(tokens[:max_words]) if too_many else line
    max_chars = SCORE_CHARS_PER_WORD * max_words
    if len(cut) > max_chars:
        return cut[:max_chars].rstrip()
    return cut if too_many else None


class _Reader:
    """Reads the input files of score_files with one policy for bytes that are not UTF-8 (tst.io.
    ENCODING_ERRORS) and counts, per file, the lines where bytes were replaced; cuts lines longer than
    max_words tokens (None: no limit) and counts them per file."""

    def __init__(self, errors: str = "strict", max_words: int | None = None, normalize=None):
        self.errors = errors
        self.normalize = normalize  # line -> line (tst.data.normalize.scoring_normalizer), None: as given
        self.replaced: dict[str, int] = {}
        self.control: dict[str, int] = {}  # file -> lines with a control character, read as empty lines
        self.max_words = max_words
        self.truncated: dict[str, int] = {}  # file -> lines cut to max_words

    def cut(self, lines: list[str], path, columns_from: int = 0) -> list[str]:
        """The lines with every tab-separated column from `columns_from` on cut to max_words tokens (a
        references file keeps its source column whole: it is matched on the source text); the cut lines are
        counted for `path` and the first is named in a warning."""
        if self.max_words is None:
            return lines
        out, first = [], None
        for i, line in enumerate(lines, 1):
            cols = line.split("\t") if columns_from else [line]
            cut = [cut_words(c, self.max_words) if k >= columns_from else None for k, c in enumerate(cols)]
            if any(c is not None for c in cut):
                self.truncated[str(path)] = self.truncated.get(str(path), 0) + 1
                first = first or i
                line = "\t".join(c if n is None else n for c, n in zip(cols, cut))
            out.append(line)
        if first:
            log.warning(
                "%s: %d line(s) longer than %d words (or %d characters) cut (the first: line %d)",
                path,
                self.truncated[str(path)],
                self.max_words,
                SCORE_CHARS_PER_WORD * self.max_words,
                first,
            )
        return out

    def references(self, path) -> list[str]:
        """The lines of a references file, each reference cut to max_words (the source column kept whole)."""
        return self.cut(self.lines(path), path, columns_from=1)

    def truncation(self) -> dict:
        """What the score JSON records: the limit, the number of lines cut and the count per file."""
        return {
            "max_words": self.max_words,
            "n_truncated": sum(self.truncated.values()),
            "truncated_lines": dict(self.truncated),
        }

    def lines(self, path, text: bool = True) -> list[str]:
        """The lines of `path`; text=True (sentences, references): normalized when the reader normalizes."""
        lines, n = read_lines_counted(path, self.errors)
        if n:
            self.replaced[str(path)] = n
            log.warning("%s: %d line(s) with bytes that are not UTF-8, replaced by U+FFFD", path, n)
        control = [i for i, line in enumerate(lines) if has_control(line)]
        if control:  # not a sentence (prepare drops such lines): an empty line here, so alignment holds
            self.control[str(path)] = len(control)
            for i in control:
                lines[i] = ""
        if text and self.normalize is not None:
            lines = [self.normalize(line) for line in lines]
        return lines

    def lists(self, path) -> list[list[str]]:
        """The 'independent' attribute lists of an attributes.jsonl file."""
        out = []
        for i, r in enumerate(parse_jsonl(self.lines(path, text=False), path), 1):
            if not isinstance(r, dict) or not isinstance(r.get("independent"), list):
                raise InputError(f"{path}, record {i}: expected an object with an 'independent' list")
            out.append(r["independent"])
        return out


def _lists_by_text(list_paths, text_paths, sources, reader: _Reader) -> list[list[str]]:
    """Attribute lists of the sources, looked up by exact sentence text in (text file, attributes.jsonl)
    pairs; a source found in none of them gets an empty list (left out of attribute hit and counted)."""
    by_text = {}
    for list_path, text_path in zip(list_paths, text_paths):
        text, rec = reader.lines(text_path), reader.lists(list_path)
        if len(rec) != len(text):
            raise InputError(f"{list_path} has {len(rec)} records but {text_path} has {len(text)} lines")
        for line, r in zip(text, rec):
            by_text.setdefault(line, r)
    return [by_text.get(s, []) for s in sources]


def score_files(
    evaluators,
    sources,
    outputs,
    source_styles,
    references=(),
    lists=(),
    lists_text=(),
    *,
    meta: dict,
    options: ScoreOptions | dict | None = None,
    only=None,
    gm_t=None,
    calibration: dict | None = None,
    json_out=None,
    tsv_out=None,
    encoding_errors: str = "strict",
    max_words: int | None = None,
    progress: bool = False,
    ci: dict | None = None,
    resample_stats: bool = False,
    normalize: dict | None = None,
) -> dict:
    """Score the transfers in files; returns the score JSON object (docs/interfaces.md).

    evaluators: an Evaluators or the evaluators folder; sources[i] / outputs[i]: the i-th source file and
    the output file aligned with it line by line, all of whose sources have style source_styles[i];
    references: `source<TAB>reference...` files matched on the source text; lists: attributes.jsonl files
    aligned with the sources, or with `lists_text` when given (then matched on the exact text); meta: the
    header (score_meta), whose `system` names the naturalness classifiers; options: see tst.scoring.score_system; only:
    metric keys (a derived key brings its factors); gm_t: when given, derived metrics (GM) are added with
    these thresholds (the CLI; the workflow leaves them to the report), and the calibrated GM with
    `calibration` (the dataset's validity/gm_thresholds.json, tst.metrics.gm.calibrate); json_out / tsv_out: also write the
    JSON / the per-sentence TSV there; encoding_errors: "strict" (a byte that is not UTF-8 in any input is
    an InputError naming the file and the line) or "replace" (U+FFFD; the JSON gets "input_encoding" with
    the number of such lines per file); max_words: every source, output and reference line longer than this
    many tokens is cut to its first max_words, and to tst.metrics.registry.SCORE_CHARS_PER_WORD x max_words characters
    (bounded memory; tst.stages.score_max_words gives the default of `tst score` and the workflow, None: no
    limit), and the JSON gets "max_words", "n_truncated" (lines cut) and "truncated_lines" (per file);
    progress: see score_system; ci: bootstrap options (tst.bootstrap.resolve; {} for its defaults): each
    metric gets "ci95": [lo, hi] (add_intervals), None: no intervals; resample_stats: the TSV also gets the
    `key:stat` columns of PP and corpus BLEU (write_score_tsv; the workflow's, which the leaderboard resamples);
    normalize: None = lines scored as given (the workflow's files are normalized when they are made), else
    {"normalize": the dataset's `normalize:` block, "from": where it was read, "placeholders": the corpus's NER
    placeholders, kept as written}: every line read (sources,
    outputs, references) goes through tst.data.normalize.scoring_normalizer first, and the JSON says so under
    "normalization" (`tst score`; {"applied": False} there when it is turned off).
    The JSON ends with its `signature` (tst.signature: version, the default GM's form and t_J, normalization,
    evaluators, variants, code).
    """
    if len(sources) != len(outputs):
        raise InputError(f"{len(sources)} source files but {len(outputs)} output files")
    if len(source_styles) != len(sources):
        raise InputError(f"{len(source_styles)} source styles for {len(sources)} source files")
    if lists and len(lists) != len(lists_text or sources):
        raise InputError(f"{len(lists)} attribute lists files for {len(lists_text or sources)} files")
    if lists_text and not lists:
        raise InputError("lists_text given without lists")
    options = ScoreOptions.of(options)  # resolved once, passed down as it is
    wanted = None
    if only is not None:
        try:
            wanted = set(check_keys(only))
        except ValueError as e:
            raise InputError(str(e)) from None
        only = wanted | {f for k in wanted for f in METRICS[k].derived_from}
    applied = bool(normalize and normalize.get("normalize") is not None)
    norm = scoring_normalizer(normalize["normalize"], normalize.get("placeholders", ())) if applied else None
    reader = _Reader(encoding_errors, max_words, norm)
    src_all, out_all, styles_all, list_all = [], [], [], [] if lists else None
    src_cut = []  # the sources as scored (cut to max_words); src_all keeps them whole to match references
    for k, (sp, op, st) in enumerate(zip(sources, outputs, source_styles)):
        src, out = reader.lines(sp), reader.lines(op)
        if not src and not out:
            raise InputError(
                f"no sentences: {sp} and {op} are empty (no lines); pass files with one sentence per line, "
                "or leave this pair out"
            )
        if len(src) != len(out):
            raise InputError(f"{op} has {len(out)} lines but {sp} has {len(src)}")
        if int(st) not in (0, 1):
            raise InputError(f"source style of {sp} must be 0 or 1, not {st!r}")
        src_all += src
        src_cut += reader.cut(src, sp)
        out_all += reader.cut(out, op)
        styles_all += [int(st)] * len(src)
        if lists and not lists_text:
            rec = reader.lists(lists[k])
            if len(rec) != len(src):
                raise InputError(f"{lists[k]} has {len(rec)} records but {sp} has {len(src)} lines")
            list_all += rec
    if lists and lists_text:
        list_all = _lists_by_text(lists, lists_text, src_all, reader)
    refs = read_references(references, src_all, read=reader.references) if references else None
    scores = score_system(
        src_cut,
        out_all,
        styles_all,
        evaluators,
        references=refs,
        lists=list_all,
        system=meta.get("system"),
        options=options,
        only=only,
        progress=progress,
    )
    if "joint" in scores:  # a fixed sentence per style scores GM 0 on this test set too (tst.metrics.gm)
        calibration = for_test_set(calibration, scores["joint"].details)
    obj = score_json(scores, meta, len(out_all), reader.truncation())
    obj["n_with_reference"] = sum(1 for r in refs if r) if refs is not None else None
    obj["control_lines"] = dict(reader.control)
    if normalize is not None:
        obj["normalization"] = normalization_record(normalize)
    if references:  # which references ref-BLEU used (data/report.json maps them to the release's files)
        obj["references_sha256"] = {Path(p).name: sha256_of(p) for p in references}
    if encoding_errors != "strict":
        obj["input_encoding"] = {"errors": encoding_errors, "replaced_lines": dict(reader.replaced)}
    if gm_t is not None:
        derived = add_derived(
            obj["metrics"], gm_t, calibration
        )  # computed metrics plus derived ones, registry order
        obj["metrics"] = {
            k: v for k, v in derived.items() if k in obj["metrics"] or wanted is None or k in wanted
        }
        for key, why in derived.skipped.items():
            if wanted is None or key in wanted:
                obj["skipped"][key] = why
                log.warning("skipped %s: %s", key, why)
    if ci is not None:
        add_intervals(obj, scores, ci, gm_t, calibration)
    obj["signature"] = signature.of_score_files(
        [obj], gm_t, (calibration or {}).get("t") if gm_t is not None else None
    )
    if json_out:
        write_json(json_out, obj)
    if tsv_out:
        write_score_tsv(tsv_out, scores, styles_all, resample_stats)
    return obj


def add_intervals(obj: dict, scores: Scores, options: dict, gm_t=None, calibration=None) -> dict:
    """Add "ci95": [lo, hi] (tst.bootstrap: paired bootstrap over the sentences, percentile interval) to
    every metric of the score object `obj` that can be resampled, and "bootstrap": the settings, the method
    and the metrics left without an interval (key -> reason)."""
    from tst.bootstrap import METHOD, bootstrap_samples, confidence_intervals, resolve

    opt = resolve(options)
    samples, skipped = bootstrap_samples(scores, obj["n_sentences"], opt, gm_t, calibration)
    for key, interval in confidence_intervals(samples).items():
        if key in obj["metrics"] and interval is not None:
            obj["metrics"][key]["ci95"] = interval
    obj["bootstrap"] = {
        **opt,
        "method": METHOD.format(**opt),
        "no_interval": {k: v for k, v in skipped.items() if k in obj["metrics"]},
    }
    return obj
