"""Import an external system's outputs (or the human references) as aligned source/output line lists.

Formats (config `datasets.{name}.systems.{system}`):
  tsv   - Li et al. 2018 outputs `source<TAB>output[<TAB>label]`, and reference files `source<TAB>rewrite`
  lines - one output per line, aligned with a sources file (`sources:`, default the dataset's test files)
Every line is kept (an empty output stays an empty line) so alignment is never broken; sources are
normalized like the corpus, outputs as `tst score` reads text (PTB tokens, the identity on tokenized text, so
raw human rewrites and tokenized outputs come out alike; `tokenize: false` splits on whitespace only).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tst.data.normalize import normalizer, scoring_normalizer
from tst.data.reader import check_file
from tst.data.sources import as_list, style_path
from tst.defaults import schema_default
from tst.io import BOM


def read_all_lines(path: str | Path, config_key: str = "") -> list[str]:
    """Every line of a file (undecodable bytes replaced, a UTF-8 byte-order mark dropped), no line dropped:
    outputs must stay aligned."""
    with open(check_file(path, config_key), "rb") as f:
        return [
            (raw.removeprefix(BOM) if i == 0 else raw).decode("utf-8", errors="replace").rstrip("\r\n")
            for i, raw in enumerate(f)
        ]


def system_setting(spec: dict, key: str):
    """A system's `key` (datasets.<name>.systems.<system>.<key>), else the schema's default."""
    return spec.get(key, schema_default("datasets", "any", "systems", "any", key))


def import_system(
    spec: dict, cfg: dict, data_dir: Path, style: int, name: str = "dataset", system: str = "system"
) -> tuple[list[str], list[str], dict]:
    """(sources, outputs, counts) of one system for test sentences of source style `style`."""
    styles = cfg["styles"]
    key = f"datasets.{name}.systems.{system}.file"
    norm = normalizer(cfg.get("normalize"))
    # outputs as `tst score` reads text (one route): PTB tokens, the identity on tokenized text; tokenize: false
    # splits on whitespace only
    scoring = scoring_normalizer(cfg.get("normalize"))
    plain = normalizer({**(cfg.get("normalize") or {}), "tokenize": False})
    out_norm = (lambda o: scoring(o).split()) if system_setting(spec, "tokenize") else plain
    lines = read_all_lines(Path(data_dir) / style_path(spec["file"], style, styles), key)
    fmt = system_setting(spec, "format")
    if fmt == "tsv":
        cells = [line.split("\t") for line in lines]
        bad = [i for i, c in enumerate(cells) if len(c) < 2]
        if bad:
            raise ValueError(
                f"{key}: line {bad[0] + 1} has no TAB (format tsv is source<TAB>output[<TAB>label])"
            )
        sources, outputs = [c[0] for c in cells], [c[1] for c in cells]
    elif fmt == "lines":
        sources = _read_sources(source_templates(spec, cfg), cfg, data_dir, style, f"{key[:-5]}.sources")
        outputs = lines
        if len(sources) != len(outputs):
            raise ValueError(f"{key}: {len(outputs)} outputs but {len(sources)} source lines")
    else:
        raise ValueError(f"{key}: unknown format {fmt!r} (tsv | lines)")
    sources = [" ".join(norm(s)) for s in sources]
    outputs = [" ".join(out_norm(o)) for o in outputs]
    counts = Counter(
        lines=len(outputs),
        empty_outputs=sum(1 for o in outputs if not o),
        copied=sum(1 for s, o in zip(sources, outputs) if s == o),
    )
    return sources, outputs, dict(counts)


def files_of_test_set(cfg: dict) -> list[str]:
    """The dataset's test file templates (source.files.test)."""
    return as_list(cfg["source"]["files"]["test"])


def source_templates(spec: dict, cfg: dict) -> list[str]:
    """The files a `lines` system's outputs are aligned with: its `sources`, default the dataset's test files."""
    return as_list(spec.get("sources")) or files_of_test_set(cfg)


def _read_sources(templates: list[str], cfg: dict, data_dir: Path, style: int, key: str) -> list[str]:
    """Every line of the files `templates` (style filled in), in order."""
    return [
        line
        for t in templates
        for line in read_all_lines(Path(data_dir) / style_path(t, style, cfg["styles"]), key)
    ]


def sources_of_test_set(cfg: dict, data_dir: Path, style: int) -> list[str]:
    """The dataset's test sentences of source style `style`, normalized as import_system normalizes sources."""
    norm = normalizer(cfg.get("normalize"))
    return [
        " ".join(norm(s))
        for s in _read_sources(files_of_test_set(cfg), cfg, data_dir, style, "source.files.test")
    ]


def alignment_problems(
    spec: dict, cfg: dict, data_dir: Path, style: int, name: str = "dataset", system: str = "system"
) -> list[str]:
    """Why a system's outputs for source style `style` are not aligned line by line with the dataset's test
    set (empty: aligned): a different number of lines, or, where the file carries its sources (format tsv),
    a source that differs from the test sentence on the same line, both normalized as import_system does."""
    key = f"datasets.{name}.systems.{system}.file"
    sources, outputs, _ = import_system(spec, cfg, data_dir, style, name, system)
    test = sources_of_test_set(cfg, data_dir, style)
    if len(outputs) != len(test):
        return [f"{key} (style {style}): {len(outputs)} lines, the test set has {len(test)}"]
    if system_setting(spec, "format") != "tsv":
        return []
    return [
        f"{key} (style {style}) line {i + 1}: source {s!r} is not the test sentence {t!r}"
        for i, (s, t) in enumerate(zip(sources, test))
        if s != t
    ]


def references_as_system(lines: list[str]) -> tuple[list[str], list[str]]:
    """references.{style}.tsv lines `source<TAB>rewrite[<TAB>rewrite...]` -> (sources, first rewrites)."""
    rows = [line.split("\t") for line in lines if line]
    return [row[0] for row in rows], [row[1] if len(row) > 1 else "" for row in rows]


def extract_outputs(original: bytes, spec: dict, key: str = "extract") -> bytes:
    """One system's outputs, one per line, cut out of a released file that holds more (config `extract`):
    `prefix: P` keeps the text after `P<TAB>` on the lines that start with it (IMaT's `all_model_outputs`
    interleave every system's outputs, `ours:<TAB>` marks theirs); `column: N` keeps the N-th TAB-separated
    cell (1-based; Mask-and-Infill's `source<TAB>output<TAB>label`). Bytes in, bytes out: nothing is decoded
    or normalized, so the result is the file as released, minus the other systems."""
    lines = original.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if "prefix" in spec:
        mark = spec["prefix"].encode("utf-8") + b"\t"
        out = [line[len(mark) :] for line in lines if line.startswith(mark)]
        if not out:
            raise ValueError(f"{key}: no line starts with {spec['prefix']!r} and a TAB")
    elif "column" in spec:
        n = int(spec["column"])
        cells = [line.split(b"\t") for line in lines]
        short = [i for i, c in enumerate(cells) if len(c) < n]
        if short:
            raise ValueError(
                f"{key}: line {short[0] + 1} has {len(cells[short[0]])} columns, column {n} is asked for"
            )
        out = [c[n - 1] for c in cells]
    else:
        raise ValueError(f"{key}: give prefix (a line marker) or column (1-based), got {sorted(spec)}")
    return b"".join(line + b"\n" for line in out)
