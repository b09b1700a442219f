"""Where released corpora are read from, and how a dataset config names its files."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def resolve_data_dir(config_value: str | Path | None = None, repo: Path = REPO) -> Path:
    """Config key data_dir, else $TST_DATA_DIR, else <repo>/../shared/data if it exists, else <repo>/resources/data."""
    if config_value:
        return Path(config_value)
    env = os.environ.get("TST_DATA_DIR")
    if env:
        return Path(env)
    shared = repo.parent / "shared" / "data"
    if shared.is_dir():
        return shared
    return repo / "resources" / "data"


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


def corpus_files(cfg: dict) -> list[str]:
    """The relative files prepare_dataset reads (corpus, references, paraphrase pairs; not system outputs)."""
    return all_files({**cfg, "systems": {}})


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
    pairs' `url` where the file is a verbatim copy of it (`download` not false; a file extracted from its url
    is not fetched)."""
    out = dict((cfg.get("source") or {}).get("urls") or {})
    for spec in [*(cfg.get("systems") or {}).values(), cfg.get("paraphrase") or {}]:
        if spec.get("url") and spec.get("download", True):
            out.setdefault(spec["file"], spec["url"])
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


def missing_downloads(datasets: dict, data_dir: str | Path) -> list[str]:
    """Configured relative paths that are absent under data_dir and have a URL: the only files the
    download rule may produce (so an existing file is never a rule output and never re-fetched)."""
    out = []
    for cfg in datasets.values():
        if (cfg.get("source") or {}).get("kind") != "files":
            continue
        for rel in all_files(cfg):
            if not (Path(data_dir) / rel).exists() and url_for(datasets, rel) and rel not in out:
                out.append(rel)
    return out


def data_file(data_dir: str | Path, rel: str) -> str:
    """A released file as the workflow names it: the real absolute path, so that the same file reached
    through another spelling ($TST_DATA_DIR, a symlink, a relative data_dir) is the same input."""
    return os.path.realpath(Path(data_dir) / rel)


def download(
    url: str | None, out: str | Path, timeout: float = 60.0, sha256: str | None = None, opener=None
) -> int:
    """Download url to out via a temporary file `<out>.part`, renamed only after the size matches the
    server's Content-Length (when it sends one) and, when given, the SHA-256 matches: a broken, partial or
    empty download never gets the final name, so it is never reused. Returns the number of bytes.
    opener(url, timeout=...) defaults to urllib.request.urlopen (file:// URLs work too)."""
    import hashlib
    import shutil
    import urllib.request

    if not url:
        raise ValueError(
            f"no download URL is configured for {out}: add it to datasets.<name>.source.urls "
            f"or place the file there by hand"
        )
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    try:
        with (opener or urllib.request.urlopen)(url, timeout=timeout) as r, open(tmp, "wb") as f:
            expected = r.headers.get("Content-Length") if getattr(r, "headers", None) else None
            shutil.copyfileobj(r, f, 1 << 20)
        size = tmp.stat().st_size
        if not size:
            raise ValueError(f"empty download from {url} (nothing written to {out}); check the URL and retry")
        if expected is not None and int(expected) != size:
            raise ValueError(
                f"incomplete download from {url}: {size} of {expected} bytes (nothing written to "
                f"{out}); retry"
            )
        if sha256:
            h = hashlib.sha256()
            with open(tmp, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            if h.hexdigest() != sha256.lower():
                raise ValueError(
                    f"download from {url} has SHA-256 {h.hexdigest()}, expected {sha256} (nothing "
                    f"written to {out}); the file changed upstream or the transfer was corrupted"
                )
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return size
