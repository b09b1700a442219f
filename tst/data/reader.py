"""Robust reading of released corpus files: bad lines are dropped and counted, never fatal."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tst.io import BOM, has_control


class DataFileError(FileNotFoundError):
    """A configured input file is missing or empty; the message names the file and the config key."""


def check_file(path: str | Path, config_key: str = "") -> Path:
    path = Path(path)
    where = f" (config key {config_key})" if config_key else ""
    if not path.is_file():
        raise DataFileError(
            f"input file not found: {path}{where}. Fix the path in the config, set data_dir / "
            f"$TST_DATA_DIR, or run the download_data rule."
        )
    if path.stat().st_size == 0:
        raise DataFileError(f"input file is empty: {path}{where}")
    return path


def read_text_lines(
    path: str | Path, config_key: str = "", max_chars: int = 2000, counts: Counter | None = None
) -> list[str]:
    """Lines of `path` (newline and surrounding whitespace stripped; a UTF-8 byte-order mark dropped).

    Dropped and counted into `counts`: non-UTF-8 lines (`non_utf8`), lines holding a control character such
    as NUL (`control`; a tab is not one), empty or whitespace-only lines (`empty`), lines longer than max_chars
    characters (`too_long`); `read` counts every line seen.
    """
    counts = Counter() if counts is None else counts
    out = []
    with open(check_file(path, config_key), "rb") as f:
        for i, raw in enumerate(f):
            counts["read"] += 1
            try:
                line = (raw.removeprefix(BOM) if i == 0 else raw).decode("utf-8").strip()
            except UnicodeDecodeError:
                counts["non_utf8"] += 1
                continue
            if has_control(line):
                counts["control"] += 1
            elif not line:
                counts["empty"] += 1
            elif max_chars and len(line) > max_chars:
                counts["too_long"] += 1
            else:
                out.append(line)
    return out
