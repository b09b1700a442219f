"""tst.progress: the progress lines of training and scoring jobs, with a fake clock."""

import io
import logging

import pytest

from tst.progress import Progress, duration, line


class Clock:
    """A clock that reads whatever the test set last."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_lines_every_interval_and_at_the_end_with_done_total_rate_and_eta(caplog):
    clock = Clock()
    with caplog.at_level(logging.INFO, logger="tst.progress"):
        p = Progress(100, "train M0/seed1", initial=20, every_s=30, bar=False, clock=clock)
        clock.now = 10
        p.update(10)  # 10 s after the start: no line yet
        assert caplog.messages == []
        clock.now = 30
        p.update(10)  # 40 done; 20 steps in 30 s = 2/3 step/s; 60 left -> 90 s
        clock.now = 45
        p.update(30)  # 15 s after the last line: none
        clock.now = 61
        p.update(30)  # the last step: a line whatever the interval; 80 steps in 61 s
    assert caplog.messages == [
        "train M0/seed1: 40/100 steps (40.0%), 0.67 steps/s, ETA 1m 30s",
        "train M0/seed1: 100/100 steps (100.0%), 1.31 steps/s, ETA 0s",
    ]


def test_the_eta_is_the_steps_left_at_this_processs_rate():
    # 8,368 steps, 1,200 done: 7,168 left at 12.5 steps/s = 573.44 s
    assert (
        line("train", 1200, 8368, "step", 12.5)
        == "train: 1,200/8,368 steps (14.3%), 12.50 steps/s, ETA 9m 33s"
    )
    assert line("score", 0, 3, "run", None) == "score: 0/3 runs (0.0%), rate not known yet"


@pytest.mark.parametrize(
    "seconds, text", [(0, "0s"), (59.4, "59s"), (60, "1m 00s"), (573.44, "9m 33s"), (7500, "2h 05m")]
)
def test_durations(seconds, text):
    assert duration(seconds) == text


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("tty", [True, False])
def test_a_bar_only_on_a_terminal(monkeypatch, tty):
    err = Terminal() if tty else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    with Progress(4, "train", every_s=1e9) as p:
        p.update(2, rec="1.00")
        assert (p.bar is not None) == tty
    assert ("2/4" in err.getvalue()) == tty and ("rec=1.00" in err.getvalue()) == tty
    with Progress(4, "train", bar=False) as p:
        assert p.bar is None
