"""Score files -> one table: a row per (system, split, checkpoint), a column per metric score.

Score files are described in docs/interfaces.md ("Score files"). The metric definitions (variant
strings and better direction) are taken from the files themselves, never assumed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pandas as pd

from tst.io import read_json
from tst.metrics.registry import METRICS, add_derived, order_key

log = logging.getLogger(__name__)

META = ["dataset", "system", "variant", "seed", "checkpoint", "epoch", "split", "n_sentences"]

# What each score file says was not scored as given (docs/interfaces.md, "Score files"), one number per file:
# column -> (display label, how it is read from the file). Each changes a mean or what it is over.
COVERAGE = {
    "n_empty": ("empty outputs", lambda rec: rec.get("n_empty")),
    "n_no_usable_words": (
        "no usable word (most of any metric)",
        lambda rec: max((rec.get("n_no_usable_words") or {}).values(), default=None),
    ),
    "n_unk": (
        "<unk> tokens (most of any classifier/LM)",
        lambda rec: max((u.get("n_unk", 0) for u in (rec.get("units") or {}).values()), default=None),
    ),
    "n_truncated": ("truncated lines", lambda rec: rec.get("n_truncated")),
    "n_control": (
        "control-character lines (read as empty)",
        lambda rec: sum((rec["control_lines"]).values()) if "control_lines" in rec else None,
    ),
    "n_with_reference": ("outputs with a reference", lambda rec: rec.get("n_with_reference")),
}

# Short names as the papers print them (unknown keys are shown as they are), the canonical column order,
# decimals (Pang & Gimpel: Acc 0.818, PP 37.3, GM 10.0, BLEU 22.3) and axis units: from the metric registry.
LABELS = {k: m.label for k, m in METRICS.items()}
ORDER = list(METRICS)
DIGITS = {k: m.digits for k, m in METRICS.items()}
UNITS = {k: m.unit for k, m in METRICS.items()}


@dataclass
class MetricInfo:
    key: str
    variant: str
    higher_is_better: bool

    @property
    def label(self) -> str:
        return LABELS.get(self.key, self.key)

    @property
    def arrow(self) -> str:
        return "↑" if self.higher_is_better else "↓"

    def axis_label(self) -> str:
        """Plot axis label: short name, arrow and unit; the exact variant goes to the figure's footnote."""
        unit = f" ({UNITS[self.key]})" if self.key in UNITS else ""
        return f"{self.label} {self.arrow}{unit}"

    def definition(self) -> str:
        return f"{self.label} {self.arrow}: {self.variant}"


def digits(key: str) -> int:
    return DIGITS.get(key, 3)  # unknown keys: 3 decimals, the registry's default


def load_scores(
    paths, gm_t=None, calibration: dict | None = None
) -> tuple[pd.DataFrame, dict[str, MetricInfo]]:
    """Read score JSONs. Returns (frame, info): frame has the META columns, the COVERAGE counts (None where
    a file lacks one) and one float column per metric key (NaN where a file lacks it); info maps metric key -> MetricInfo, keys in ORDER.

    gm_t: when given, the derived metrics (GM) of every file are (re)computed from its stored corpus
    scores (acc, sim, pp_joint) with these thresholds (tst.metrics.registry.add_derived), and the calibrated
    GM with `calibration` (the dataset's validity/gm_thresholds.json); a file lacking a factor gets none.
    Without gm_t, GM is what the files hold."""
    rows, variants, better = [], {}, {}
    for path in paths:
        rec = read_json(path)
        row = {k: rec.get(k) for k in META}
        row.update({k: read(rec) for k, (_, read) in COVERAGE.items()})
        metrics = rec.get("metrics", {})
        if gm_t is not None:
            metrics = add_derived(metrics, gm_t, calibration)
        for key, m in metrics.items():
            row[key] = float("nan") if m.get("score") is None else float(m["score"])
            variants.setdefault(key, set()).add(str(m.get("variant")))
            better.setdefault(key, set()).add(bool(m.get("higher_is_better", True)))
        rows.append(row)
    info = {}
    for key in sorted(variants, key=order_key):
        if len(variants[key]) > 1:
            log.warning("metric %s has several variants across score files: %s", key, sorted(variants[key]))
        if len(better[key]) > 1:
            raise ValueError(f"metric {key}: higher_is_better differs across score files")
        info[key] = MetricInfo(key, " / ".join(sorted(variants[key])), better[key].pop())
    frame = pd.DataFrame(rows, columns=META + list(COVERAGE) + list(info))
    frame["epoch"] = pd.to_numeric(frame["epoch"], errors="coerce")
    frame["seed"] = pd.Series([None if pd.isna(s) else int(s) for s in frame["seed"]], dtype="object")
    return frame, info


def _is_ours(frame: pd.DataFrame) -> pd.Series:
    # Ours = a seed and a variant. The seed decides: some writers put the system name in `variant` of
    # external systems instead of null.
    return frame["seed"].notna() & frame["variant"].notna()


def ours(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of our trained models (`{variant}.seed{seed}`)."""
    return frame[_is_ours(frame)]


def external(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of external systems (seed null): published outputs, human references, the source."""
    return frame[~_is_ours(frame)]


def variant_order(frame: pd.DataFrame, variants: list[str] | None = None) -> list[str]:
    """Variants in config order when given (then any others found, sorted)."""
    found = sorted(set(ours(frame)["variant"]))
    given = [v for v in (variants or []) if v in found]
    return given + [v for v in found if v not in given]
