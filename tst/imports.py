"""Imports that skip what a library loads only because it is installed."""

from __future__ import annotations

import contextlib
import sys


@contextlib.contextmanager
def unimportable(*names: str):
    """`import name` raises ImportError inside the block (Python's sys.modules[name] = None convention); after it
    the module imports as usual. For libraries that import an optional package whenever it is installed:
    thinc imports torch (tst.nlp.backend), POT imports scikit-learn (tst.metrics.wmd). A name already imported
    is left as it is."""
    blocked = [n for n in names if n not in sys.modules]
    for n in blocked:
        sys.modules[n] = None
    try:
        yield
    finally:
        for n in blocked:
            del sys.modules[n]
