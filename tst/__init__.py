"""tst: the reference pipeline for non-parallel text style transfer research.

The public Python API, kept across patch releases, is what __all__ lists (tests/test_api.py): score_texts
(`tst score` on texts in memory), ScoreResult (what it returns) and __version__. Every other module path may move."""

# The one place of the version: pyproject.toml reads it (tool.setuptools.dynamic), every score's signature names
# it (tst.signature). It moves whenever the default numbers do (tests/test_numbers_digest.py, CHANGELOG.md).
__version__ = "0.9.0"

__all__ = ["ScoreResult", "__version__", "score_texts"]
_API = {"ScoreResult": "tst.api", "score_texts": "tst.api"}  # name -> the module that defines it


def __getattr__(name: str):
    """The API's names, loaded on first use so that `import tst` stays light (no torch, no numpy). Through
    importlib rather than an import statement: tst.codehash follows import statements, and this file is part of
    every workflow script's code hash."""
    if name in _API:
        from importlib import import_module

        return getattr(import_module(_API[name]), name)
    raise AttributeError(f"module 'tst' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
