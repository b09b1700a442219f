"""tst.logs.log_to: the block every workflow script runs in."""

import gc
import logging
import sys

import pytest

from tst.logs import log_to


@pytest.fixture()
def unfrozen():
    """The test process's objects back under the cyclic GC after each test (log_to freezes them)."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_the_log_holds_the_logged_lines_and_stderr(tmp_path, unfrozen):
    path = tmp_path / "logs" / "rule.log"
    with log_to(path):
        logging.getLogger("tst.x").info("trained %d epochs", 3)
        print("a warning on stderr", file=sys.stderr)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith(" INFO tst.x: trained 3 epochs")
    assert lines[1] == "a warning on stderr"
    assert logging.getLogger().handlers == []  # nothing writes to the closed file afterwards


@pytest.mark.parametrize("to_file", [True, False])
def test_a_finished_block_freezes_every_object_then_alive(tmp_path, unfrozen, to_file):
    """Python's shutdown then skips the cyclic collections over them: every object tracked by the GC before
    the block is in the permanent generation after it, and the generations the GC scans are nearly empty."""
    kept = [[i] for i in range(10_000)]  # 10,001 more tracked objects, alive throughout
    before = len(gc.get_objects())
    with log_to(tmp_path / "rule.log" if to_file else None):
        pass
    assert gc.get_freeze_count() >= before >= len(kept)
    assert len(gc.get_objects()) < 100


def test_a_failed_block_logs_the_error_and_freezes_nothing(tmp_path, unfrozen):
    path = tmp_path / "rule.log"
    with pytest.raises(ValueError, match="bad line 3"), log_to(path):
        raise ValueError("bad line 3")
    assert gc.get_freeze_count() == 0
    text = path.read_text(encoding="utf-8")
    assert " ERROR tst: failed" in text and "ValueError: bad line 3" in text
