"""tst: the reference pipeline for non-parallel text style transfer research."""

__version__ = "0.1.0"
