"""Where released corpora are read from, and how a dataset config names its files."""

from __future__ import annotations

import os
import re
from pathlib import Path


def _clone() -> Path | None:
    """The clone the package runs from (the folder above it holds the Snakefile), None for an installed wheel."""
    above = Path(__file__).resolve().parents[2]
    return above if (above / "Snakefile").is_file() else None


REPO = _clone()


def resolve_data_dir(config_value: str | Path | None = None, repo: Path | None = REPO) -> Path:
    """Config key data_dir, else $TST_DATA_DIR, else <repo>/data (git-ignored; the download rules fill it), or
    data/ in the current folder where the package runs from no clone (an installed wheel)."""
    if config_value:
        return Path(config_value)
    env = os.environ.get("TST_DATA_DIR")
    if env:
        return Path(env)
    return (repo if repo is not None else Path()) / "data"


MIRROR_SCHEMES = ("http://", "https://", "file://")


def resolve_mirror(config_value: str | None = None) -> str | None:
    """Config key data_mirror, else $TST_MIRROR, else None (the public URLs): the base URL of a copy of a data
    folder, laid out like data_dir, that every download is fetched from instead (its bytes are checked against
    the configured sha256, so a mirror changes where bytes come from, never what a run reads)."""
    value = config_value or os.environ.get("TST_MIRROR")
    if not value:
        return None
    if not value.startswith(MIRROR_SCHEMES):
        key = "config key data_mirror" if config_value else "$TST_MIRROR"
        raise ValueError(
            f"{key} {value!r} is not a URL: give the base URL of a data folder copy "
            f"({' | '.join(MIRROR_SCHEMES)}...), e.g. http://host/tst-data"
        )
    return value.rstrip("/")


def fetch_url(url: str | None, rel: str, mirror: str | None) -> str | None:
    """Where a data file's bytes come from: <mirror>/<rel> when a mirror is set, else its public URL."""
    from urllib.parse import quote

    return f"{mirror}/{quote(rel)}" if mirror and url else url


def style_path(template: str, style: int, styles: list[str]) -> str:
    """Fill a file template: `{style}` -> 0/1, `{name}` -> the style's name from the dataset's `styles`."""
    return template.format(style=style, name=styles[style])


def as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def file_specs(cfg: dict, split: str) -> list:
    """The file specs configured for one split (or `pool`) in source.files: a template string, a list of
    them, or a labels-file spec {text: ..., labels: ...}."""
    return as_list((cfg.get("source", {}).get("files") or {}).get(split))


def all_files(cfg: dict) -> list[str]:
    """Every relative file path a dataset config reads (corpus, references, systems, paraphrase pairs), styles
    filled in."""
    styles = cfg["styles"]
    templates: list[str] = []
    for specs in (cfg.get("source", {}).get("files") or {}).values():
        for spec in as_list(specs):
            templates += [spec["text"], spec["labels"]] if isinstance(spec, dict) else [spec]
    templates += as_list((cfg.get("references") or {}).get("files"))
    templates += [s["file"] for s in (cfg.get("systems") or {}).values()]
    templates += as_list((cfg.get("paraphrase") or {}).get("file"))
    out = []
    for t in templates:
        for style in range(len(styles)):
            p = style_path(t, style, styles)
            if p not in out:
                out.append(p)
    return out


def corpus_files(cfg: dict, references: bool = True) -> list[str]:
    """The relative files prepare_dataset reads (corpus, references, paraphrase pairs; not system outputs);
    references=False: without the reference files (rule prepare_data: tst.data.references reads them)."""
    return all_files({**cfg, "systems": {}, **({} if references else {"references": {}})})


def reference_files(cfg: dict) -> list[str]:
    """The relative files preparing a dataset's references reads: its reference files and explicit test files
    (an aligned reference file pairs the test lines)."""
    test = [s for s in as_list((cfg.get("source", {}).get("files") or {}).get("test")) if isinstance(s, str)]
    refs = as_list((cfg.get("references") or {}).get("files"))
    if not refs:
        return []
    return all_files(
        {"styles": cfg["styles"], "source": {"files": {"test": test}}, "references": {"files": refs}}
    )


def _template_regex(template: str, styles: list[str], named: bool = False) -> str:
    """Regex of a path template; with named=True the placeholders become groups style / name / system."""
    fill = {"style": "[0-9]", "name": "|".join(re.escape(s) for s in styles), "system": r"[A-Za-z0-9_.\-]+"}
    out, seen = [], set()
    for part in re.split(r"\{(style|name|system)\}", template):
        if part not in fill:
            out.append(re.escape(part))
        elif not named:
            out.append(f"(?:{fill[part]})")
        else:
            out.append(f"(?P={part})" if part in seen else f"(?P<{part}>{fill[part]})")
            seen.add(part)
    return "".join(out)


def url_templates(cfg: dict) -> dict[str, str]:
    """A dataset's file template -> public URL template: source.urls, then each system's and the paraphrase
    pairs' `url` where the file is a verbatim copy of it (`download` not false). A system with `extract` is
    made from its `original`, a verbatim copy of its url: the original is what is fetched."""
    out = dict((cfg.get("source") or {}).get("urls") or {})
    for spec in [*(cfg.get("systems") or {}).values(), cfg.get("paraphrase") or {}]:
        if spec.get("url") and spec.get("extract"):
            out.setdefault(spec["original"], spec["url"])
        elif spec.get("url") and spec.get("download", True):
            out.setdefault(spec["file"], spec["url"])
    return out


def sha256_for(datasets: dict, rel: str) -> str | None:
    """The sha256 configured for a relative data path (source.sha256, references.sha256, or the paraphrase
    pairs' sha256), or None."""
    for cfg in datasets.values():
        for table in ((cfg.get("source") or {}).get("sha256"), (cfg.get("references") or {}).get("sha256")):
            if table and rel in table:
                return table[rel].lower()
        para = cfg.get("paraphrase") or {}
        if para.get("file") == rel and para.get("sha256"):
            return para["sha256"].lower()
    return None


def extracted_files(datasets: dict) -> dict[str, tuple[str, dict]]:
    """Each system file made from a released original (systems with `extract`), styles filled in ->
    (the original's relative path, the extract spec)."""
    out = {}
    for cfg in datasets.values():
        styles = cfg["styles"]
        for spec in (cfg.get("systems") or {}).values():
            if spec.get("extract"):
                for style in range(len(styles)):
                    rel = style_path(spec["file"], style, styles)
                    out[rel] = (style_path(spec["original"], style, styles), spec["extract"])
    return out


def url_for(datasets: dict, path: str) -> str | None:
    """The public URL configured for a relative data path (url_templates of any dataset), or None."""
    for cfg in datasets.values():
        styles = cfg["styles"]
        for template, url in url_templates(cfg).items():
            m = re.fullmatch(_template_regex(template, styles, named=True), str(path))
            if m:
                g = m.groupdict()
                style = (
                    int(g["style"]) if g.get("style") else (styles.index(g["name"]) if g.get("name") else 0)
                )
                return url.format(style=style, name=styles[style], system=g.get("system") or "")
    return None


def missing_downloads(datasets: dict, data_dir: str | Path, also=()) -> list[str]:
    """Configured relative paths (every file of all_files, the originals of extracted systems, and `also`) that
    are absent under data_dir and have a URL: the only files the download rule may produce (so an existing
    file is never a rule output and never re-fetched)."""
    out = []
    originals = [original for original, _ in extracted_files(datasets).values()]
    for cfg in datasets.values():
        if (cfg.get("source") or {}).get("kind") != "files":
            continue
        for rel in [*all_files(cfg), *originals, *also]:
            if not (Path(data_dir) / rel).exists() and url_for(datasets, rel) and rel not in out:
                out.append(rel)
    return out


def data_file(data_dir: str | Path, rel: str) -> str:
    """A released file as the workflow names it: the real absolute path, so that the same file reached
    through another spelling ($TST_DATA_DIR, a symlink, a relative data_dir) is the same input."""
    return os.path.realpath(Path(data_dir) / rel)
