"""Logging of a workflow script: everything it logs or writes to stderr goes to the rule's log file; and, when
the script's work is done, a quicker exit."""

from __future__ import annotations

import gc
import logging
import sys
from contextlib import contextmanager, redirect_stderr
from pathlib import Path


@contextmanager
def log_to(path):
    """Log (INFO) and stderr into `path` (the rule's `log:`) for the duration of the block; with no path,
    log to stderr. Every workflow script is one such block: when it ends without an error, the objects then
    alive are frozen (`gc.freeze`), so that Python's shutdown, which tears the modules down as usual, no longer
    runs full cyclic collections over them (torch's modules are most of them: 0.4-0.6 s of every job that
    imports torch, docs/performance.md)."""
    if not path:
        logging.basicConfig(
            level=logging.INFO, stream=sys.stderr, force=True, format="%(levelname)s %(name)s: %(message)s"
        )
        yield
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f, redirect_stderr(f):
            logging.basicConfig(
                level=logging.INFO,
                stream=f,
                force=True,
                format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            )
            try:
                yield
            except BaseException:
                logging.getLogger("tst").exception("failed")
                raise
            finally:
                root = logging.getLogger()
                for handler in list(root.handlers):
                    handler.flush()
                    root.removeHandler(handler)
    gc.freeze()  # reached only when the block ended without an error
