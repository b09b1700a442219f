"""What a dataset's numbers warn of, said aloud: rule report_tables writes the warnings of each dataset into
results/{dataset}/warnings.md (a page of the report), and a finished run prints them (tst.afterrun). Parts of
the pipeline were made on sentiment corpora; on another corpus they can fail without an error:

  Pang & Gimpel's GM is 0 for every system: its thresholds (score.gm_t) were learned for their Yelp evaluators,
      and a corpus whose language model gives another perplexity range puts every system, the references
      included, below them;
  a style classifier's dev accuracy is below STYLE_ACC_MIN: every style score it gives (Acc, TS, the default GM's
      style factor) reads a classifier that often cannot tell the styles apart;
  the acceptability classifier rejects (P(real) < ACCEPTS) one style's own test sentences far more than the
      other's (REJECT_FACTOR times as often and REJECT_POINTS more): it penalizes that style, not disfluency.
"""

from __future__ import annotations

import csv
from pathlib import Path

from tst.io import read_json

STYLE_ACC_MIN = 0.85
ACCEPTS = 0.5  # P(real) at or above which the acceptability classifier accepts a sentence
REJECT_FACTOR = 2.0
REJECT_POINTS = 0.05


def pang_gimpel_all_zero(score_files, gm_t) -> list[str]:
    """A warning when Pang & Gimpel's GM (eq. 1 with thresholds gm_t) is 0 for every scored system's test
    outputs that has Acc, Sim and PP (at least one), else none."""
    from tst.metrics.gm import gm

    values = {}
    for path in score_files:
        obj = read_json(path)
        m = obj.get("metrics") or {}
        if obj.get("split", "test") != "test" or not all(k in m for k in ("acc", "sim", "pp_joint")):
            continue
        name = f"{obj.get('system', Path(path).parent.name)}@{obj.get('checkpoint', Path(path).stem)}"
        values[name] = gm(m["acc"]["score"], m["sim"]["score"], m["pp_joint"]["score"], tuple(gm_t))
    if not values or any(v > 0 for v in values.values()):
        return []
    return [
        (
            f"Pang & Gimpel's GM (gm_pg) is 0 for every one of the {len(values)} scored systems, the references "
            f"included: its thresholds score.gm_t = {list(gm_t)} were learned for their Yelp evaluators and do not "
            "fit this corpus's Acc / Sim / PP ranges (see the PP column). Compare systems on the default GM, or set "
            "score.gm_t for this corpus (e.g. learned from human preferences: datasets.<name>.human_ratings)."
        )
    ]


def classifier_accuracy(path) -> float | None:
    """The dev accuracy a style classifier's checkpoint records (its "metrics"), or None."""
    import torch

    obj = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    acc = (obj.get("metrics") or {}).get("dev_accuracy")
    return None if acc is None else float(acc)


def weak_style_classifiers(classifiers: dict[str, str], minimum: float = STYLE_ACC_MIN) -> list[str]:
    """A warning per style classifier ({kind: checkpoint}) whose dev accuracy is below `minimum`."""
    out = []
    for kind, path in classifiers.items():
        acc = classifier_accuracy(path)
        if acc is not None and acc < minimum:
            out.append(
                f"the {kind} style classifier ({Path(path).name}) reaches a dev accuracy of {acc:.3f}, below "
                f"{minimum:.2f}: the style scores it gives (acc, transfer_strength, sti, the default GM's style "
                "factor for minilm) often cannot tell this corpus's styles apart; give it more training "
                "sentences or epochs (evaluators.<kind>, or datasets.<name>.<kind>), or read its scores as weak."
            )
    return out


def rejection_rates(source_tsv) -> dict[int, float]:
    """Per source style, the share of the real test sentences (the `source` system's per-sentence TSV) that
    the acceptability classifier rejects (P(real) < ACCEPTS)."""
    with open(source_tsv, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    if not rows or "acceptability" not in rows[0]:
        return {}
    counts: dict[int, list[int]] = {}
    for r in rows:
        if r["acceptability"] == "":
            continue
        c = counts.setdefault(int(r["source_style"]), [0, 0])
        c[0] += float(r["acceptability"]) < ACCEPTS
        c[1] += 1
    return {st: rejected / n for st, (rejected, n) in sorted(counts.items()) if n}


def acceptability_rejects(source_tsv, styles) -> list[str]:
    """A warning when the acceptability classifier rejects one style's real test sentences far more than the
    other's: REJECT_FACTOR times the rate and REJECT_POINTS more."""
    rates = rejection_rates(source_tsv)
    if len(rates) != 2:
        return []
    lo, hi = sorted(rates, key=rates.get)
    if rates[hi] >= REJECT_FACTOR * rates[lo] and rates[hi] - rates[lo] > REJECT_POINTS:
        return [
            (
                f"the acceptability classifier rejects {100 * rates[hi]:.1f}% of style {hi} ({styles[hi]})'s own "
                f"test sentences against {100 * rates[lo]:.1f}% of style {lo} ({styles[lo]})'s (P(real) < "
                f"{ACCEPTS}): it reads that style as disfluent, so acceptability (and the default GM) penalize "
                f"outputs in it; read acceptability per target style, or train it on more of that style's sentences "
                "(evaluators.acceptability.max_train)."
            )
        ]
    return []


def dataset_warnings(score_files, gm_t, classifiers: dict[str, str], source_tsv, styles) -> list[str]:
    """Every warning of one dataset's run (empty: none)."""
    return (
        pang_gimpel_all_zero(score_files, gm_t)
        + weak_style_classifiers(classifiers)
        + (acceptability_rejects(source_tsv, styles) if source_tsv else [])
    )


def write_warnings(path, dataset: str, warnings: list[str]) -> None:
    """results/{dataset}/warnings.md: a heading and one bullet per warning (or that there is none)."""
    lines = [f"# Warnings: {dataset}", ""]
    lines += [f"- {w}" for w in warnings] or ["None: no check found a part of the pipeline misfiring here."]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_warnings(path) -> list[str]:
    """The warnings write_warnings wrote (none when the file is absent)."""
    path = Path(path)
    if not path.is_file():
        return []
    return [line[2:] for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("- ")]
