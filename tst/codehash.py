"""A content hash of the code a workflow script runs: the script and every `tst` module it imports,
directly or through other `tst` modules (imports inside functions included).

Rules carry it as a param, so a job reruns when that code changes and never because a file was touched,
the clone moved or another module changed. Torch-free: it reads source text, it imports nothing.
"""

from __future__ import annotations

import ast
import hashlib
import re
from functools import cache
from pathlib import Path

PACKAGE = "tst"
PACKAGE_DIR = Path(__file__).resolve().parent
# Modules that import the modules of a package by listing its folder, not by name: module -> (package, the
# modules it leaves out). tst.metrics.registry collects the ROWS of every metric module (NOT_METRICS there).
DISCOVERS = {"tst.metrics.registry": ("tst.metrics", ("aggregate", "base", "registry"))}


def _module_file(name: str, package_dir: Path) -> Path | None:
    """tst.a.b -> <package_dir>/a/b.py or <package_dir>/a/b/__init__.py (None if neither exists)."""
    parts = name.split(".")[1:]
    base = package_dir.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imported(path: Path) -> frozenset[str]:
    """Names of the tst modules a file imports (`from tst.x import y` may name a module y or a symbol y)."""
    return _imports_in(path.read_text(encoding="utf-8"), str(path))


# The first line of an import of the package (at any depth: imports inside functions count too)
_IMPORT_START = re.compile(rf"^[ \t]*(?:from|import)[ \t]+{PACKAGE}\b", re.MULTILINE)
_MAX_IMPORT_LINES = 200  # a parenthesized import of more names than this is not looked for


@cache
def _imports_in(source: str, filename: str) -> frozenset[str]:
    """_imported of one source text, read once per process: the workflow hashes ~25 scripts at every start,
    which import the same modules. Only the import statements are parsed, each from its first line (found by
    _IMPORT_START) to the line that completes it: the same names as parsing the whole file (tests/test_decisions.py
    compares the two on every module), at ~1/15 of its time (~0.05 s instead of ~0.7 s of each `snakemake`
    start). Keyed by the text itself, so an edited file is read anew."""
    lines = source.splitlines()
    names = set()
    for first in sorted({source.count("\n", 0, m.start()) for m in _IMPORT_START.finditer(source)}):
        for last in range(first, min(first + _MAX_IMPORT_LINES, len(lines))):
            try:
                tree = ast.parse("\n".join(line.strip() for line in lines[first : last + 1]), filename)
                break
            except SyntaxError:  # not complete yet (a parenthesized list of names goes on)
                continue
        else:
            continue
        names |= _import_names(tree)
    return frozenset(names)


def _import_names(tree: ast.AST) -> set[str]:
    """The tst modules (and `from m import x`'s m.x) that a parsed text's absolute import statements name."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return {n for n in names if n == PACKAGE or n.startswith(PACKAGE + ".")}


def modules_of(script: str | Path, package_dir: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Every tst module the script runs (with the packages' __init__ files), name -> file."""
    found: dict[str, Path] = {}
    todo = list(_imported(Path(script)))
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # importing tst.a.b runs tst/__init__ and tst/a/__init__ too
            prefix = ".".join(parts[:i])
            if prefix in found:
                continue
            path = _module_file(prefix, package_dir)
            if path is None:  # a symbol, not a module
                continue
            found[prefix] = path
            todo.extend(_imported(path))
            if prefix in DISCOVERS:
                todo.extend(_discovered(*DISCOVERS[prefix], package_dir))
    return found


def _discovered(package: str, left_out: tuple[str, ...], package_dir: Path) -> list[str]:
    """The modules of `package` (one folder) but `left_out`, as names."""
    folder = package_dir.joinpath(*package.split(".")[1:])
    return [
        f"{package}.{p.stem}" for p in sorted(folder.glob("*.py")) if p.stem not in ("__init__", *left_out)
    ]


@cache
def code_hash(script: str | Path, package_dir: Path = PACKAGE_DIR) -> str:
    """SHA-256 (first 16 hex digits) over the script's text and that of every tst module it runs, keyed by
    module name, so the clone's location and file times never enter it."""
    h = hashlib.sha256()
    h.update(Path(script).read_bytes())
    for name, path in sorted(modules_of(script, package_dir).items()):
        h.update(b"\0" + name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]
