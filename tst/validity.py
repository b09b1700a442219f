"""Can a metric's verdict be trusted? Checks of the metrics themselves, on this dataset's own evaluators:

- content separation: each content metric on true pairs (a human rewrite and its own source) against shuffled
  pairs (the same rewrite and another source of the same style); the means and the AUC of telling them apart;
- word-order damage: each honest system's outputs with adjacent words swapped, or all words shuffled, must
  score below the system itself on an aggregate;
- the validity table (tst.report.tables.validity_table) then asks, per metric, whether every sanity baseline
  (tst.baselines) ranks below every honest system.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping

import numpy as np

from tst.progress import Progress

log = logging.getLogger(__name__)

# Content metrics that score an output against its own source, sentence by sentence (registry keys); `content`
# is the default GM's content factor c_i (how much nearer the output is to its own source than to the k-th nearest
# other source, tst.metrics.joint: 0 where it is not among the k nearest, ties that cost AUC the cosine keeps).
SEPARATION_KEYS = (
    "sim",
    "cp",
    "wmd_masked",
    "wmd_removed",
    "wmd_unmasked",
    "bleu_self_sentence",
    "bleu_self_st",
    "sbert_all_minilm_l6_v2",
    "content",
)
# What the word-order check scores of each damaged copy: the inputs of both GMs (J of the default GM; Acc, Sim
# and PP of Pang & Gimpel's) and the MiniLM content score.
DAMAGE_KEYS = ("joint", "acc", "sim", "pp_joint", "sbert_all_minilm_l6_v2")
SWAPS = 3  # adjacent swaps per output (measured on the demo: 3 swaps raised P&G's GM of M2)
DAMAGES = ("swap", "shuffle")  # the damaged copies of each system's outputs (damaged)
PAST = {"swap": f"with {SWAPS} adjacent swaps", "shuffle": "shuffled"}  # what the progress lines call them


def derangement(n: int, seed: int) -> list[int]:
    """A permutation pi of range(n) with pi[i] != i for every i (n >= 2): a seeded random order, each element
    sent to the next one in that order (a single cycle). n < 2: the identity (no other order exists)."""
    order = list(range(n))
    random.Random(int(seed)).shuffle(order)
    pi = list(range(n))
    for j in range(n):
        pi[order[j]] = order[(j + 1) % n]
    return pi


def adjacent_swaps(sentence: str, k: int, rng: random.Random) -> str:
    """`sentence` with k swaps of two adjacent words at random positions (a sentence of one word stays)."""
    words = sentence.split()
    for _ in range(k if len(words) > 1 else 0):
        i = rng.randrange(len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words)


def damaged(outputs: list[str], kind: str, seed: int) -> list[str]:
    """Word-order-damaged copies of a system's outputs: kind "swap" (SWAPS adjacent swaps per line) or
    "shuffle" (the words in random order); one generator per line, seeded with (seed, line)."""
    out = []
    for i, o in enumerate(outputs):
        rng = random.Random(f"{int(seed)}:{i}")
        if kind == "swap":
            out.append(adjacent_swaps(o, SWAPS, rng))
        elif kind == "shuffle":
            words = o.split()
            rng.shuffle(words)
            out.append(" ".join(words))
        else:
            raise ValueError(f"unknown damage {kind!r} (swap | shuffle)")
    return out


def auc(true, shuffled, higher_is_better: bool = True) -> float | None:
    """P(a true pair scores better than a shuffled pair) + 1/2 P(tie): the Mann-Whitney U of the true pairs over
    the number of pairs (scipy.stats.mannwhitneyu, ties at their average rank); values that are None are left
    out (none are, for metrics where every output counts). 1 = perfect separation, 0.5 = none."""
    from scipy.stats import mannwhitneyu

    a = np.asarray([x for x in true if x is not None], dtype=float)
    b = np.asarray([x for x in shuffled if x is not None], dtype=float)
    if not len(a) or not len(b):
        return None
    if not higher_is_better:
        a, b = -a, -b
    # the statistic only: the asymptotic method spares the exact p-value's cost, which U does not depend on
    u = mannwhitneyu(a, b, alternative="two-sided", method="asymptotic").statistic
    return float(u / (len(a) * len(b)))


def separation(true, shuffled, higher_is_better: bool = True) -> dict:
    """Means over true and shuffled pairs, their gap in the metric's better direction, and the AUC."""
    t = [x for x in true if x is not None]
    s = [x for x in shuffled if x is not None]
    mt = float(np.mean(t)) if t else None
    ms = float(np.mean(s)) if s else None
    return {
        "mean_true": mt,
        "mean_shuffled": ms,
        "gap": None if mt is None or ms is None else (mt - ms if higher_is_better else ms - mt),
        "auc": auc(true, shuffled, higher_is_better),
        "n_true": len(t),
        "n_shuffled": len(s),
    }


def shuffled_sources(sources: list[str], styles: list[int], seed: int) -> list[str]:
    """Each source replaced by another source of the same style (a derangement within each style)."""
    out = list(sources)
    for style in sorted(set(styles)):
        idx = [i for i, s in enumerate(styles) if s == style]
        pi = derangement(len(idx), seed + style)
        for j, i in enumerate(idx):
            out[i] = sources[idx[pi[j]]]
    return out


def _per_sentence(scores, key):
    r = scores.get(key)
    return None if r is None else list(r.per_sentence)


def content_separation(
    reference_lines: dict[int, list[str]], evaluators, options: Mapping, seed: int
) -> dict:
    """SEPARATION_KEYS on true pairs (each human rewrite with its own source, references.{style}.tsv lines)
    and on shuffled pairs (the rewrite with another source of the same style, shuffled_sources)."""
    from tst.data.systems import references_as_system
    from tst.metrics.registry import METRICS
    from tst.scoring.compute import score_system

    sources, outputs, styles = [], [], []
    for style, lines in sorted(reference_lines.items()):
        src, out = references_as_system(lines)
        sources += src
        outputs += out
        styles += [int(style)] * len(src)
    other = shuffled_sources(sources, styles, seed)
    keys = [k for k in SEPARATION_KEYS if k in METRICS]
    log.info(f"content separation: scoring {len(outputs):,} reference pairs, true then shuffled")
    true = score_system(sources, outputs, styles, evaluators, options=options, only=keys)
    shuf = score_system(other, outputs, styles, evaluators, options=options, only=keys)
    out = {}
    for key in keys:
        t, s = _per_sentence(true, key), _per_sentence(shuf, key)
        if t is None or s is None:
            continue
        out[key] = {
            **separation(t, s, METRICS[key].higher_is_better),
            "variant": true[key].variant,
            "higher_is_better": METRICS[key].higher_is_better,
        }
    skipped = {k: (true.skipped.get(k) or shuf.skipped.get(k)) for k in keys if k not in out}
    return {
        "pairs": "true: each human reference rewrite with its own source; shuffled: the same rewrite with "
        "another source of the same style (a seeded derangement within each style)",
        "n_pairs": len(outputs),
        "seed": seed,
        "metrics": out,
        "skipped": skipped,
    }


def word_order_damage(systems: dict[str, tuple], evaluators, options: Mapping, seed: int) -> dict:
    """For each system (name -> (sources, outputs, source_styles)): DAMAGE_KEYS' corpus scores of its outputs
    with SWAPS adjacent swaps per line, and shuffled (damaged). The outputs as they are are not scored here: the
    system's own score file holds the same metrics on the same outputs (rule score; tst.rule_inputs.validity_report_files names them as "originals"),
    and the word-order table reads them from it (a third of this job's work before: on Yelp, 14 systems x 1,000
    outputs)."""
    from tst.metrics.registry import METRICS
    from tst.scoring.compute import score_system

    keys = [k for k in DAMAGE_KEYS if k in METRICS]
    out = {}
    steps = Progress(
        len(systems) * len(DAMAGES), "word-order damage", unit="damaged set", bar=False, logger=log
    )
    for i, (name, (sources, outputs, styles)) in enumerate(systems.items(), 1):
        row = {}
        for kind in DAMAGES:
            log.info(
                f"word-order damage: system {i} of {len(systems)}, {name}, {len(outputs):,} outputs {PAST[kind]}"
            )
            s = score_system(
                sources, damaged(outputs, kind, seed), styles, evaluators, options=options, only=keys
            )
            row[kind] = {k: r.to_json() for k, r in s.items()}
            steps.update()
        out[name] = row
    return {"swaps_per_line": SWAPS, "seed": seed, "keys": keys, "systems": out}
