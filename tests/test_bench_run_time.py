"""bench/run_time.py's busy core-seconds (the README's demo and stage figures): /proc/stat's aggregate cpu line,
idle and iowait not busy, guest time (already inside user and nice) not counted twice."""

import importlib.util

import pytest
from conftest import REPO

spec = importlib.util.spec_from_file_location("run_time", REPO / "bench" / "run_time.py")
run_time = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_time)

BEFORE = """cpu  100 5 50 1000 20 3 2 1 7 0
cpu0 60 5 30 500 10 2 1 1 7 0
cpu1 40 0 20 500 10 1 1 0 0 0
intr 12345
"""
AFTER = """cpu  300 5 150 1100 30 3 2 1 50 0
cpu0 160 5 80 540 15 2 1 1 50 0
cpu1 140 0 70 560 15 1 1 0 0 0
"""


def test_busy_and_total_ticks_by_hand():
    # busy = user 100 + nice 5 + system 50 + irq 3 + softirq 2 + steal 1 = 161; + idle 1000 + iowait 20 = 1181
    assert run_time.cpu_ticks(BEFORE) == (161, 1181)
    assert run_time.cpu_ticks(AFTER) == (461, 1591)


def test_busy_core_seconds_between_two_readings():
    # 461 - 161 = 300 ticks; the guest column's rise (7 -> 50) is inside user's and not added again
    assert run_time.busy_core_seconds(BEFORE, AFTER, hz=100) == pytest.approx(3.0)
    assert run_time.busy_core_seconds(BEFORE, AFTER, hz=250) == pytest.approx(1.2)


def test_a_stat_without_the_aggregate_line_is_an_error():
    with pytest.raises(ValueError, match="no aggregate 'cpu' line"):
        run_time.cpu_ticks("cpu0 1 2 3 4 5 6 7 8 0 0\n")
