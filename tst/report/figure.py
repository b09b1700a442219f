"""How the report's figures are drawn and saved, whatever they show (matplotlib, Agg): a colour per variant,
PNG and SVG files, text wrapped to a width, a panel that says why it is empty, axes fitted to the honest points
with the others drawn on the border, labels placed without overlap. The papers' figures: tst.report.plots."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.transforms import Bbox

log = logging.getLogger(__name__)
plt.rcParams["svg.hashsalt"] = "tst-report"  # stable SVG ids: same scores -> same file


def variant_colors(variants: list[str]) -> dict[str, tuple]:
    """A fixed colour per variant, by its position in the config's variant list (tab10, then tab20)."""
    cmap = plt.get_cmap("tab10" if len(variants) <= 10 else "tab20")
    return {v: cmap(i % cmap.N) for i, v in enumerate(variants)}


def save_figure(fig, stem: str | Path) -> list[Path]:
    """Write {stem}.png and {stem}.svg and close the figure."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    fig.savefig(paths[0], dpi=130, bbox_inches="tight", metadata={"Software": None})
    fig.savefig(paths[1], bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return paths


# Text is wrapped here, at a width in characters, not by matplotlib's wrap=True, which measures the rendered line
# again at every word (measured: 5 of the 13 s of the tiny run's report_plots). CHAR_EM: the average width of a
# character of DejaVu Sans text in ems, taken large (0.6; lowercase prose averages ~0.5) so no line outgrows the width.
CHAR_EM = 0.6


def wrap_lines(text: str, width_in: float, fontsize: float) -> str:
    """Each line of text wrapped at word boundaries to fit width_in inches at fontsize points."""
    chars = max(20, int(width_in * 72 / (fontsize * CHAR_EM)))
    return "\n".join(textwrap.fill(line, chars) if line else line for line in text.split("\n"))


def absent(ax, what: str) -> None:
    log.warning("plot skipped: %s", what)
    width_in = ax.get_position().width * ax.figure.get_figwidth()
    ax.text(
        0.5,
        0.5,
        wrap_lines(f"not available:\n{what}", width_in, 9),
        ha="center",
        va="center",
        transform=ax.transAxes,
        fontsize=9,
        color="0.4",
    )
    ax.set_xticks([])
    ax.set_yticks([])


# The axes of a trade-off plot fit the honest systems (ours, published, references, source) with this share of their
# range as margin on each side: a sanity baseline far off (`empty`: WMD 1, PP in the thousands) would otherwise
# squeeze every real system into a corner. A point outside is drawn on the border it crosses, labelled with its
# value.
FIT_MARGIN = 0.15


def fit_axes(ax, honest: list[tuple[float, float]], points: list[tuple[float, float]]) -> list[bool]:
    """Set ax's limits to the honest (x, y) points plus FIT_MARGIN (when there are any), and return for each of
    `points` whether it lies outside them. Limits are left to matplotlib without honest points."""
    if not honest:
        return [False] * len(points)
    limits = []
    for axis in (0, 1):
        lo, hi = min(p[axis] for p in honest), max(p[axis] for p in honest)
        pad = FIT_MARGIN * (hi - lo) if hi > lo else 0.05 * max(abs(lo), 1.0)
        limits.append((lo - pad, hi + pad))
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    return [not (limits[0][0] <= x <= limits[0][1] and limits[1][0] <= y <= limits[1][1]) for x, y in points]


def clip_to(ax, x: float, y: float) -> tuple[float, float]:
    """(x, y) moved onto the border of ax's limits where it lies outside them."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return min(max(x, x0), x1), min(max(y, y0), y1)


def off_axis(ax, x: float, y: float, name: str, color, decimals: tuple[int, int] = (3, 3)) -> None:
    """Draw a point that lies outside ax's limits on the border it crosses: an open marker, its name and its
    true value."""
    cx, cy = clip_to(ax, x, y)
    before = sum(1 for t in ax.texts if (t.get_gid() or "").startswith("offscale-"))  # stacked, not overlaid
    ax.scatter([cx], [cy], marker="o", s=28, facecolors="none", edgecolors=color, clip_on=False, zorder=4)
    ax.annotate(
        f"{name} ({x:.{decimals[0]}f}, {y:.{decimals[1]}f}, off scale)",
        (cx, cy),
        textcoords="offset points",
        xytext=(-4 if cx >= ax.get_xlim()[1] else 4, (-9 if cy >= ax.get_ylim()[1] else 3) - 9 * before),
        ha="right" if cx >= ax.get_xlim()[1] else "left",
        fontsize=7,
        color=color,
        annotation_clip=False,
        gid=f"offscale-{name}",
    )


def place_labels(ax, points: list[tuple[float, float, str]], color_of: dict[str, object]) -> list:
    """Label every point with its name, each at the first of a few offsets whose text overlaps no marker and no
    label placed before (greedy, in display space); the last offset when none is free. Returns the Texts."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    offsets = [(4, 3), (4, -9), (-4, 3), (-4, -9), (4, 10), (-4, 10), (4, -16), (-4, -16)]
    r = 3.5  # a marker's half size in display pixels (about 24 pt^2 at 130 dpi)
    placed = [
        Bbox.from_extents(u - r, v - r, u + r, v + r)
        for u, v in ax.transData.transform([p[:2] for p in points])
    ]
    texts = []
    for x, y, name in sorted(points, key=lambda p: (-p[1], p[0], p[2])):
        for dx, dy in offsets:
            t = ax.annotate(
                name,
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                ha="left" if dx > 0 else "right",
                fontsize=7,
                color=color_of.get(name, "0.2"),
                gid=f"label-{name}",
            )
            box = t.get_window_extent(renderer)
            if not any(box.overlaps(b) for b in placed) or (dx, dy) == offsets[-1]:
                placed.append(box)
                texts.append(t)
                break
            t.remove()
    return texts
