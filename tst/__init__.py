"""tst: the reference pipeline for non-parallel text style transfer research."""

# The one place of the version: pyproject.toml reads it (tool.setuptools.dynamic), every score's signature names
# it (tst.signature). It moves whenever the default numbers do (tests/test_numbers_digest.py, CHANGELOG.md).
__version__ = "0.4.0"
