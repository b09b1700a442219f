"""Plain file helpers shared by every stage: one sentence per line, tokens split on spaces."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file without their newline (a missing file raises FileNotFoundError)."""
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def read_sentences(path: str | Path) -> list[list[str]]:
    """A tokenized corpus file: one sentence per line, tokens separated by single spaces."""
    return [line.split() for line in read_lines(path)]


def write_lines(path: str | Path, lines) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)


def write_sentences(path: str | Path, sentences) -> None:
    write_lines(path, (" ".join(s) for s in sentences))


def read_jsonl(path: str | Path) -> list:
    return [json.loads(line) for line in read_lines(path) if line.strip()]


def write_jsonl(path: str | Path, records) -> None:
    write_lines(path, (json.dumps(r, ensure_ascii=False) for r in records))


def read_json(path: str | Path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path: str | Path, obj) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False, sort_keys=False)
        f.write("\n")


def sha256_of(path: str | Path) -> str:
    """Hex digest of a file, recorded in score files so a number names the evaluator it came from."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
