"""Imports that skip what a library loads only because it is installed."""

from __future__ import annotations

import contextlib
import sys


@contextlib.contextmanager
def unimportable(*names: str):
    """`import name` raises ImportError inside the block (Python's sys.modules[name] = None convention); after it
    the module imports as usual. For libraries that import an optional package whenever it is installed:
    thinc imports torch (tst.nlp.backend), POT imports scikit-learn (tst.metrics.wmd), nltk imports scikit-learn
    and SciPy (load_nltk). A name already imported is left as it is."""
    blocked = [n for n in names if n not in sys.modules]
    for n in blocked:
        sys.modules[n] = None
    try:
        yield
    finally:
        for n in blocked:
            del sys.modules[n]


@contextlib.contextmanager
def stand_in(*names: str):
    """`import name` inside the block gives an empty module and runs nothing: for a submodule that a library's
    package imports whatever is asked of it (POT's ot.datasets, tst.metrics.wmd). After the block the name
    imports the real module again; a name already imported is left as it is."""
    import types

    stood = [n for n in names if n not in sys.modules]
    for n in stood:
        sys.modules[n] = types.ModuleType(n)
    try:
        yield
    finally:
        for n in stood:
            del sys.modules[n]


def load_nltk():
    """The nltk package, imported without scikit-learn and SciPy, and returned. nltk's __init__ imports every
    subpackage, among them a scikit-learn classifier wrapper, a transition parser and association measures that
    try-import scikit-learn (with pandas) and scipy.stats: 1.6 s of a 1.9 s import, measured, for
    the tokenizers, the Porter stemmer and sentence BLEU used here, which need neither. Call it before any
    `from nltk... import`. Where SciPy itself is already imported (a score job's scikit-learn), scipy.stats and
    scipy.sparse are still kept from nltk (scipy.stats alone is ~0.7 s); where a module is already imported,
    nltk sees it as usual."""
    with unimportable("sklearn", "scipy", "scipy.stats", "scipy.sparse"):
        import nltk

    return nltk
