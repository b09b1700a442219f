"""What every `tst` command checks before its work, and how it stops: `tst COMMAND: error: MESSAGE` on stderr,
exit 2 for the command line, 1 for a file's content."""

from __future__ import annotations

import sys
from pathlib import Path

from tst import layout


def fail(command: str, message: str, code: int):
    """Print `tst COMMAND: error: MESSAGE` on stderr and exit with `code` (2: the command line, 1: a file)."""
    print(f"tst {command}: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def check_files(command: str, groups: dict, stdin: bool = True) -> None:
    """Every file each option names exists (exit 2 naming the option); `-` (standard input) only when `stdin`."""
    for option, paths in groups.items():
        for path in paths or ():
            if path == "-" and not stdin:
                fail(command, f"{option} -: tst {command} reads files, not standard input; pass a file", 2)
            if path != "-" and not Path(path).is_file():
                fail(command, f"{option} {path}: no such file", 2)


def check_writable(command: str, groups: dict) -> None:
    """Each output path is not a folder and its nearest existing folder is writable (checked before the work)."""
    import os

    for option, path in groups.items():
        if not path:
            continue
        p = Path(path)
        if p.is_dir():
            fail(command, f"{option} {path}: is a folder; pass a file name", 2)
        parent = next((a for a in p.absolute().parents if a.exists()), None)
        if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            fail(command, f"{option} {path}: cannot write there ({parent} is not a writable folder)", 2)


def dataset_root(command: str, path: str) -> Path:
    """--dataset-dir: the dataset's results folder (results/<dataset>, holding data/ and evaluators/). Its data
    folder (results/<dataset>/data: a folder named data with neither a data nor an evaluators folder of its own) is
    read as that results folder, with a warning naming the folder to pass."""
    p = Path(path)
    own = (p / layout.DATA).is_dir() or (p / layout.EVALUATORS).is_dir()
    if p.name == layout.DATA and p.is_dir() and not own:
        print(
            f"tst {command}: warning: --dataset-dir {path} is the dataset's {layout.DATA} folder; read as its "
            f"results folder {p.parent} (pass that: --dataset-dir {layout.root('<dataset>')} for both tst score "
            "and tst transfer)",
            file=sys.stderr,
        )
        return p.parent
    return p
