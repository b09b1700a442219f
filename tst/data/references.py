"""Human references of a dataset's test set (`datasets.<name>.references`): their two file forms, the checks that
stop a run before any job on a file that would be read wrong, and the rule prepare_references, which turns them
into references.{style}.tsv apart from the corpus (so that a changed reference file retrains no evaluator).

A reference file is read in one of two forms, detected per file:

  lines  one rewrite per line, aligned line by line with the test file(s) of its style (no line has a TAB);
         its sources are the test lines
  tsv    `source<TAB>rewrite[<TAB>...]` on every line (Li et al. 2018's reference.{0,1}; a third column, such
         as their image captions' target label, is ignored); each source is one of the test sentences of its
         style, normalized like the corpus. References are matched on the source text (tst score, the score
         rules), so the lines may be in another order than the test file (Li et al.'s Amazon references are)

A file whose lines mix the two forms, an aligned file with another number of lines than the test set, an empty
line of an aligned file, or a tsv line whose source is no test sentence stops with an InputError naming the file,
the line and the fix.
"""

from __future__ import annotations

from collections import defaultdict, deque
from pathlib import Path

from tst import layout
from tst.data.normalize import normalizer
from tst.data.reader import read_text_lines
from tst.data.sources import as_list, resolve_data_dir, style_path
from tst.defaults import schema_default
from tst.io import InputError, read_json, sha256_of, write_json, write_lines

FORMS = ("lines", "tsv")
FIX = (
    "A references file is either one rewrite per line, aligned with the test file (no TAB on any line), or "
    "source<TAB>rewrite on every line, the source being the test sentence it rewrites"
)


def reference_form(lines: list[str], path) -> str:
    """ "tsv" when every line holds a TAB, "lines" when none does; a mix stops with an InputError naming the first
    line of the fewer kind."""
    tabbed = ["\t" in line for line in lines]
    if all(tabbed):
        return "tsv"
    if not any(tabbed):
        return "lines"
    n = sum(tabbed)
    odd = tabbed.index(False) if 2 * n >= len(tabbed) else tabbed.index(True)
    what = "has no TAB" if 2 * n >= len(tabbed) else "has a TAB"
    raise InputError(
        f"{path} line {odd + 1} {what}, while {n} of its {len(lines)} lines are source<TAB>rewrite: the file "
        f"mixes two forms. {FIX}. Fix: make every line one form (a rewrite that holds a TAB: replace the TAB by "
        "a space)."
    )


def read_reference_file(
    path: Path, key: str, test_lines: list[str] | None, test_sentences: set[str] | None, norm, ref_norm
) -> tuple[str, list[tuple[str, str]]]:
    """(form, [(source, rewrite)]) of one reference file, sources normalized like the corpus, rewrites with
    ref_norm. test_lines: the raw lines of the style's test file(s), which an aligned file pairs line by line
    (None: the test set is split from a pool, so no file can be aligned with it); test_sentences: the normalized
    test sentences a tsv source must be one of (None: not checked)."""
    from tst.data.systems import read_all_lines

    raw = read_all_lines(path, key)
    form = reference_form(raw, path)
    if form == "tsv":
        # read as the corpus files are (whitespace stripped, empty / control / too long lines dropped)
        rows = []
        for i, line in enumerate(read_text_lines(path, key)):
            cells = line.split("\t")
            rows.append((" ".join(norm(cells[0])), " ".join(ref_norm(cells[1] if len(cells) > 1 else ""))))
        if test_sentences is not None:
            for i, line in enumerate(raw):
                source = " ".join(norm(line.split("\t")[0]))
                if source not in test_sentences:
                    raise InputError(
                        f"{path} line {i + 1}: the source {line.split(chr(9))[0].strip()!r} is not a test "
                        f"sentence of its style ({key}; compared normalized like the corpus). {FIX}. Fix: correct "
                        "the source, or write the file as one rewrite per line in the test file's order."
                    )
        return form, rows
    if test_lines is None:
        raise InputError(
            f"{path}: one rewrite per line (no TAB), but the test set is split from a pool (source.files.pool), so "
            f"no file is aligned with it ({key}). Fix: give the test sentences as files (source.files.test), or "
            "write the references as source<TAB>rewrite."
        )
    if len(raw) != len(test_lines):
        raise InputError(
            f"{path}: {len(raw)} lines of one rewrite each (no TAB), but the test file(s) of its style have "
            f"{len(test_lines)} lines ({key}). {FIX}. Fix: one line per test line, in the test file's order."
        )
    empty = [i for i, line in enumerate(raw) if not line.strip()]
    if empty:
        raise InputError(
            f"{path} line {empty[0] + 1} is empty: an aligned references file has one rewrite on every line of "
            f"the test file ({key}). Fix: write the rewrite there (or use source<TAB>rewrite lines and leave that "
            "test sentence out)."
        )
    return form, [(" ".join(norm(t)), " ".join(ref_norm(r))) for t, r in zip(test_lines, raw)]


def test_file_lines(cfg: dict, data_dir: Path, style: int) -> list[str] | None:
    """Every raw line of the dataset's explicit test files (source.files.test) of one style, in order; None when
    the test set is split from a pool. A {text, labels} spec gives the lines labelled with the style."""
    from tst.data.systems import read_all_lines

    specs = as_list(((cfg.get("source") or {}).get("files") or {}).get("test"))
    if not specs:
        return None
    styles, out = cfg["styles"], []
    for spec in specs:
        if isinstance(spec, dict):
            text = read_all_lines(data_dir / style_path(spec["text"], style, styles))
            labels = read_all_lines(data_dir / style_path(spec["labels"], style, styles))
            out += [t for t, lab in zip(text, labels) if lab.strip() == str(style)]
        else:
            out += read_all_lines(data_dir / style_path(spec, style, styles))
    return out


def normalizers(cfg: dict):
    """(the corpus' normalizer, the references' one: PTB-tokenized when references.tokenize)."""
    rc = cfg.get("references") or {}
    tokenize = bool(rc.get("tokenize", schema_default("datasets", "any", "references", "tokenize")))
    return normalizer(cfg.get("normalize")), normalizer(
        {**(cfg.get("normalize") or {}), "tokenize": tokenize}
    )


def reference_rows(
    cfg: dict, name: str, data_dir, test_sentences: dict[int, list[str]] | None = None
) -> tuple[dict[int, list[tuple[str, ...]]], dict[str, str]]:
    """({style: [(source, rewrite of file 1, rewrite of file 2, ...)]}, {file: form}) of a files dataset's
    references, rows in the first file's order; a later file's rewrites are matched to the rows on their source.
    test_sentences: the prepared test sentences (normalized, not masked) a tsv source must be one of when the
    test set comes from a pool; with explicit test files their lines are read and checked against."""
    rc, styles = cfg["references"], cfg["styles"]
    data_dir = Path(resolve_data_dir(data_dir))
    norm, ref_norm = normalizers(cfg)
    key = f"datasets.{name}.references.files"
    rows: dict[int, list[tuple[str, ...]]] = {}
    forms: dict[str, str] = {}
    for st in range(len(styles)):
        test_lines = test_file_lines(cfg, data_dir, st)
        if test_lines is not None:
            known = {" ".join(norm(t)) for t in test_lines}
        else:
            known = set(test_sentences[st]) if test_sentences is not None else None
        table: list[list[str]] = []
        for i, spec in enumerate(as_list(rc.get("files"))):
            rel = style_path(spec, st, styles)
            form, pairs = read_reference_file(data_dir / rel, key, test_lines, known, norm, ref_norm)
            forms[rel] = form
            if i == 0:
                table = [[s, r] for s, r in pairs]
                continue
            by_source: dict[str, deque] = defaultdict(deque)
            for s, r in pairs:
                by_source[s].append(r)
            for row in table:
                row.append(by_source[row[0]].popleft() if by_source[row[0]] else "")
        rows[st] = [tuple(r) for r in table]
    return rows, forms


def check_references(config: dict, data_dir) -> None:
    """Before any job: every present reference file of a run dataset with explicit test files is read in its
    form and checked (reference_form, read_reference_file); a bad one stops with its InputError. Files still to
    be downloaded, and sources of a test set split from a pool, are checked by prepare_references."""
    for name in config.get("run") or []:
        cfg = config["datasets"][name]
        if not cfg.get("references") or (cfg.get("source") or {}).get("kind") != "files":
            continue
        files = [
            Path(data_dir) / style_path(spec, st, cfg["styles"])
            for spec in as_list(cfg["references"].get("files"))
            for st in range(len(cfg["styles"]))
        ]
        tests = [
            Path(data_dir) / style_path(spec, st, cfg["styles"])
            for spec in as_list((cfg["source"].get("files") or {}).get("test"))
            for st in range(len(cfg["styles"]))
            if isinstance(spec, str)
        ]
        if all(p.is_file() for p in files + tests):
            reference_rows(cfg, name, data_dir)


def reference_release(cfg: dict, name: str, data_dir) -> dict:
    """{release, sha256: {file: digest}, verified} of a dataset's reference files (`datasets.{name}.references`:
    copies of Li et al.'s references in circulation differ, so a run records which one it scored against).
    A digest given in the config that does not match the file stops with an InputError naming the file, the
    expected and the actual digest."""
    rc, styles = cfg["references"], cfg["styles"]
    data_dir = resolve_data_dir(data_dir)
    expected = rc.get("sha256") or {}
    digests = {}
    for spec in as_list(rc.get("files")):
        for st in range(len(styles)):
            rel = style_path(spec, st, styles)
            actual = sha256_of(data_dir / rel)
            want = expected.get(rel)
            if want is not None and want.lower() != actual:
                raise InputError(
                    f"{data_dir / rel}: sha256 {actual} differs from datasets.{name}.references.sha256"
                    f"[{rel!r}] = {want} (release {rc.get('release')!r}). Fix: use the file of that release, "
                    "or, if this copy is the one you mean to score against, set its release and sha256 in the config"
                )
            digests[rel] = actual
    return {"release": rc.get("release"), "sha256": digests, "verified": sorted(expected) == sorted(digests)}


def prepare_references(
    cfg: dict,
    data_dir,
    out_dir,
    nlp_cfg: dict | None = None,
    name: str = "dataset",
    backend=None,
    corpus: dict | None = None,
) -> dict:
    """references.{style}.tsv (word level, NER-masked like the corpus) and report.json (the corpus' report
    with the references' counts, forms and release) from the reference files and what preparing the corpus
    left in corpus.json (`corpus`, read from out_dir when None): its report, its test sentences, its NER
    masking of every sentence and the demo corpus's own references. Returns the report."""
    out_dir = Path(out_dir)
    corpus = read_json(out_dir / layout.CORPUS_STATE) if corpus is None else corpus
    styles = cfg["styles"]
    ner_cfg = cfg.get("ner") or {}
    rows: dict[int, list[tuple[str, ...]]] = {}
    extra: dict = {}
    if corpus.get("demo_references") is not None:  # the generator's rewrites, masked with the corpus
        rows = {int(st): [tuple(r) for r in rs] for st, rs in corpus["demo_references"].items()}
    elif cfg.get("references"):
        test = {int(st): lines for st, lines in corpus["test"].items()}
        rows, forms = reference_rows(cfg, name, data_dir, test)
        extra["references_forms"] = forms
        extra["references_release"] = reference_release(cfg, name, data_dir)
        if ner_cfg.get("enabled", schema_default("datasets", "any", "ner", "enabled")) and rows:
            from tst.data.corpus import _mask_rows

            if backend is None:
                from tst.nlp.backend import backend_from_config

                backend = backend_from_config(nlp_cfg)
            cache = dict(corpus.get("masked") or {})
            rows = {st: _mask_rows(r, backend, ner_cfg, cache) for st, r in rows.items()}
    for st in range(len(styles)):
        write_lines(out_dir / layout.references_file(st), ("\t".join(r) for r in rows.get(st, [])))
    refs = {"references": {str(st): len(r) for st, r in rows.items()}}
    if "references_release" in extra:
        refs["references_release"] = extra["references_release"]
    report: dict = {}
    for k, v in corpus["report"].items():  # the references' keys where preparing in one step wrote them
        if k in ("bpe", "paraphrase") and refs:
            report |= refs
            refs = {}
        report[k] = v
    report |= refs
    if "references_forms" in extra:
        report["references_forms"] = extra["references_forms"]
    write_json(out_dir / layout.DATA_REPORT, report)
    return report
