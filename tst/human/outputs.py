"""Where Li et al.'s released system outputs are: `sentiment.{split}.{style}.{system}` files in one folder.

A light module: the workflow declares these files as inputs without importing pandas (tst.human.ratings,
which reads them, does)."""

from __future__ import annotations

from pathlib import Path


def system_output_files(outputs_dir: str | Path, split: str = "test") -> list[str]:
    """The `sentiment.{split}.{0,1}.{system}` files of `outputs_dir`, sorted (read_system_outputs reads them; the
    rules declare them as inputs)."""
    return [str(p) for p in sorted(Path(outputs_dir).glob(f"sentiment.{split}.[01].*"))]
