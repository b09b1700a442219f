"""Progress of a long job that people can read: a log line with the steps done of the total, the rate and the
time left, at a steady interval (every `every_s` seconds, and when the last step is done), and a tqdm bar
when stderr is a terminal. Workflow jobs log into their rule's log file (tst.logs.log_to, stderr redirected
there), so they get the lines and no bar; `tail -f logs/train_transfer/...` shows how far a job is."""

from __future__ import annotations

import logging
import sys
import time

log = logging.getLogger(__name__)

EVERY_S = 30.0  # seconds between two progress lines
# Units whose rate reads better scaled: unit -> (divisor, the rate's unit): a download's bytes as MB/s.
SCALED = {"byte": (1e6, "MB")}


def duration(seconds: float) -> str:
    """A time span as people read it: 45s, 9m 33s, 2h 05m."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


def line(what: str, done: int, total: int | None, unit: str, rate: float | None) -> str:
    """'train M0 seed 1: 1,200/8,368 steps (14.3%), 12.50 steps/s, ETA 9m 33s'; the rate in units per second
    (None or 0: not known yet; a unit of SCALED in its scaled unit, e.g. MB/s), the ETA the steps left at that
    rate; total None (not known, e.g. a download without a Content-Length): the steps done and the rate only."""
    of = f"/{total:,} {unit}s ({100 * done / total:.1f}%)" if total else f" {unit}s"
    if rate:
        divisor, per = SCALED.get(unit, (1, f"{unit}s"))
        speed = f"{rate / divisor:.2f} {per}/s"
        if total:
            speed += f", ETA {duration(max(total - done, 0) / rate)}"
    else:
        speed = "rate not known yet"
    return f"{what}: {done:,}{of}, {speed}"


class Progress:
    """Count steps of a job of `total` (from `initial`: a resumed job's steps done before this process) and
    log its progress every `every_s` seconds of `clock` and at the last step (to `logger`, or to `say(line)`
    when given); the rate is over this process's steps. `bar`: also a tqdm bar on stderr, when stderr is a
    terminal. Use as a context manager."""

    def __init__(
        self,
        total: int | None,
        what: str,
        unit: str = "step",
        initial: int = 0,
        every_s: float = EVERY_S,
        bar: bool = True,
        clock=time.monotonic,
        logger: logging.Logger = log,
        say=None,
    ):
        self.total, self.what, self.unit, self.every_s = total, what, unit, every_s
        self.done = self.start_done = initial
        self.clock, self.logger = clock, logger
        self.say = say  # a callable taking the line, in place of the logger (a training loop's own log)
        self.start = self.last = clock()
        self.bar = None
        if bar and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(
                total=total, initial=initial, desc=what, unit=unit, unit_scale=unit in SCALED, file=sys.stderr
            )

    def rate(self, now: float) -> float | None:
        elapsed = now - self.start
        return (self.done - self.start_done) / elapsed if elapsed > 0 else None

    def update(self, n: int = 1, **postfix) -> None:
        """n more steps done; postfix: values the bar shows (e.g. the loss)."""
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
            if postfix:
                self.bar.set_postfix(**postfix, refresh=False)
        now = self.clock()
        if now - self.last >= self.every_s or self.done == self.total:
            self.last = now
            text = line(self.what, self.done, self.total, self.unit, self.rate(now))
            if self.say is not None:
                self.say(text)
            else:
                self.logger.info("%s", text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
