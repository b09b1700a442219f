"""Plain file helpers shared by every stage: one sentence per line, tokens split on spaces."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ENCODING_ERRORS = ("strict", "replace")  # what to do with bytes that are not UTF-8: stop, or U+FFFD and count
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte-order mark: dropped from the start of a file (it is not text)
# C0 control characters (NUL included) and DEL; the tab is kept (it separates the columns of TSV files)
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def has_control(line: str) -> bool:
    """Whether a line holds a control character (CONTROL): such a line is not a sentence. Prepare drops and
    counts it (tst.data.reader), tst score scores it as an empty line and counts it (tst.scoring.read)."""
    return CONTROL.search(line) is not None


class InputError(ValueError):
    """An input file that cannot be used as it is; the message names the file (and line) and the fix."""


class ConfigError(ValueError):
    """A config the workflow cannot run (tst.config's checks, the download hosts, the resources); the message
    names the key and the fix."""


class NotUTF8Error(InputError):
    """A text file with bytes that are not UTF-8; the message names the file, the line and the byte."""


def read_lines_counted(path: str | Path, errors: str = "strict") -> tuple[list[str], int]:
    """Lines of a UTF-8 text file without their newline (universal newlines, as text mode reads them) and
    how many lines hold bytes that are not UTF-8. errors="strict": NotUTF8Error naming the file, the line and
    the byte; "replace": each such byte becomes U+FFFD. A missing file raises FileNotFoundError."""
    return decode_lines(Path(path).read_bytes(), path, errors)


def decode_lines(data: bytes, path: str | Path = "<bytes>", errors: str = "strict") -> tuple[list[str], int]:
    """read_lines_counted on bytes already read (e.g. standard input); `path` names them in errors. A UTF-8
    byte-order mark at the start is dropped."""
    if errors not in ENCODING_ERRORS:
        raise ValueError(f"errors must be one of {ENCODING_ERRORS}, not {errors!r}")
    bad = 0
    data = data.removeprefix(BOM)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if errors == "strict":
            line = data.count(b"\n", 0, e.start) + 1
            col = e.start - data.rfind(b"\n", 0, e.start)
            raise NotUTF8Error(
                f"{path}, line {line}: byte 0x{data[e.start]:02x} (byte {col} of the line) is not "
                f"UTF-8 ({e.reason}); re-encode the file as UTF-8"
            ) from None
        bad = sum(1 for raw in data.split(b"\n") if not _is_utf8(raw))
        text = data.decode("utf-8", errors="replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines, bad


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file without their newline (a missing file raises FileNotFoundError, a byte
    that is not UTF-8 NotUTF8Error naming the file and the line)."""
    return read_lines_counted(path)[0]


def read_sentences(path: str | Path) -> list[list[str]]:
    """A tokenized corpus file: one sentence per line, tokens separated by single spaces."""
    return [line.split() for line in read_lines(path)]


def write_lines(path: str | Path, lines) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)


def parse_jsonl(lines, path: str | Path = "<jsonl>") -> list:
    """One JSON value per non-empty line; InputError naming the file and the line of a line that is not JSON."""
    out = []
    for i, line in enumerate(lines, 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise InputError(f"{path}, line {i}: not JSON ({e.msg} at column {e.colno})") from None
    return out


def read_jsonl(path: str | Path) -> list:
    return parse_jsonl(read_lines(path), path)


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
