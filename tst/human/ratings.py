"""Li et al. (2018) crowd ratings -> a tidy (source, system) table, and preference pairs from it.

The MTurk CSV (ratings-yelp.csv, ratings-amazon.csv) has one row per task: one source sentence
(`Input.origs`, repeated once per rewrite, TAB-separated), 8 shuffled rewrites (`Input.mods`, TAB-separated;
`Answer.mods` is truncated at double quotes, so it is not used) and `Answer.responses`, one
"grammaticality=g sentiment=s topic=c" entry (1-5 each, higher = better) per rewrite, in `Input.mods` order.
`Input.target` is the *target* sentiment, so the source style is its opposite.

Rewrites are mapped to systems by string match against the system outputs of that source
(`outputs/sentiment.test.{style}.{system}`: source<TAB>output[<TAB>label]): exact match first, then
after lowercasing and collapsing whitespace (the crowd saw the human references lowercased and stripped).
Ties: when several systems produced the same string, the task shows it once per system (identical
slots), so every such system gets the mean rating over those slots.
"""

from __future__ import annotations

import csv
import hashlib
from collections import Counter
from itertools import combinations
from pathlib import Path

import pandas as pd

from tst.human.outputs import system_output_files
from tst.io import read_lines

ASPECTS = ("grammaticality", "sentiment", "topic")
TARGET_TO_SOURCE_STYLE = {"negative": 1, "positive": 0}  # source style = opposite of Input.target


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def parse_ratings_csv(path: str | Path) -> pd.DataFrame:
    """One row per rated rewrite: task, worker, source, source_style, slot, rewrite, g/s/t scores."""
    rows = []
    with open(path, encoding="utf-8", newline="") as f:
        for task in csv.DictReader(f):
            source = task["Input.origs"].split("\t")[0]
            mods = task["Input.mods"].split("\t")
            responses = task["Answer.responses"].split("\t")
            if len(mods) != len(responses):
                raise ValueError(f"task {task['HITId']}: {len(mods)} rewrites but {len(responses)} responses")
            for slot, (mod, resp) in enumerate(zip(mods, responses)):
                scores = dict(kv.split("=") for kv in resp.split())
                rows.append(
                    {
                        "task": task["HITId"],
                        "worker": task["WorkerId"],
                        "source": source,
                        "source_style": TARGET_TO_SOURCE_STYLE[task["Input.target"]],
                        "slot": slot,
                        "rewrite": mod,
                        **{a: float(scores[a]) for a in ASPECTS},
                    }
                )
    return pd.DataFrame(rows)


def read_system_outputs(outputs_dir: str | Path, split: str = "test") -> dict[str, dict[int, list[tuple]]]:
    """{system: {style: [(source, output), ...]}} from `sentiment.{split}.{style}.{system}` files."""
    out: dict[str, dict[int, list[tuple]]] = {}
    for path in map(Path, system_output_files(outputs_dir, split)):
        style, system = path.name.split(".")[2:4]
        pairs = [tuple(line.split("\t")[:2]) for line in read_lines(path)]
        out.setdefault(system, {})[int(style)] = pairs
    return out


def match_ratings(raw: pd.DataFrame, outputs: dict) -> tuple[pd.DataFrame, dict]:
    """Map rated rewrites to systems; return the tidy table and a report of the matching.

    Table: one row per (source, system): source, source_style, line (0-based index of the source in the test file
    of its style), system, output, grammaticality, sentiment, topic (means over all slots and tasks that
    rated this system's output), n_ratings, match ("exact" | "normalized"), n_systems_same_output.
    """
    # source -> (style, first line); system outputs of that line
    index: dict[tuple[int, str], int] = {}
    for by_style in outputs.values():
        for style, pairs in by_style.items():
            for i, (src, _) in enumerate(pairs):
                index.setdefault((style, src), i)
    rows, unmatched, kinds, shared = [], 0, Counter(), Counter()
    missing_source = 0
    for (task, source, style), slots in raw.groupby(["task", "source", "source_style"], sort=False):
        line = index.get((style, source))
        if line is None:
            missing_source += 1
            unmatched += len(slots)
            continue
        sys_out = {s: by[style][line][1] for s, by in outputs.items() if style in by}
        for rewrite, same in slots.groupby("rewrite", sort=False):
            systems = [s for s, o in sys_out.items() if o == rewrite]
            kind = "exact"
            if not systems:
                systems = [s for s, o in sys_out.items() if _norm(o) == _norm(rewrite)]
                kind = "normalized"
            if not systems:
                unmatched += len(same)
                continue
            kinds[kind] += len(same)
            if len(systems) > 1:
                shared["slots"] += len(same)
                shared["slot_count_differs"] += int(len(same) != len(systems))
            for s in systems:
                rows.append(
                    {
                        "task": task,
                        "source": source,
                        "source_style": style,
                        "line": line,
                        "system": s,
                        "output": sys_out[s],
                        "match": kind,
                        "n_systems_same_output": len(systems),
                        "n_slots": len(same),
                        **{a: same[a].mean() for a in ASPECTS},
                    }
                )
    per_task = pd.DataFrame(rows)
    keys = ["source", "source_style", "line", "system"]
    table = (
        per_task.groupby(keys, sort=False)
        .agg(
            output=("output", "first"),
            grammaticality=("grammaticality", "mean"),
            sentiment=("sentiment", "mean"),
            topic=("topic", "mean"),
            n_ratings=("task", "size"),
            match=("match", "first"),
            n_systems_same_output=("n_systems_same_output", "first"),
        )
        .reset_index()
    )
    report = {
        "tasks": int(raw["task"].nunique()),
        "workers": int(raw["worker"].nunique()),
        "rated_rewrites": len(raw),
        "sources": int(raw["source"].nunique()),
        "tasks_with_unknown_source": missing_source,
        "rewrites_matched_exact": int(kinds["exact"]),
        "rewrites_matched_normalized": int(kinds["normalized"]),
        "rewrites_unmatched": int(unmatched),
        "rewrites_shared_by_several_systems": int(shared["slots"]),
        "shared_strings_shown_other_than_once_per_system": int(shared["slot_count_differs"]),
        "rows": len(table),
        "rows_per_system": {k: int(v) for k, v in table["system"].value_counts().sort_index().items()},
    }
    return table, report


def overall_score(table: pd.DataFrame) -> pd.Series:
    """Overall human quality of a rewrite: the mean of its grammaticality, sentiment and topic ratings.

    Li et al. collected no overall judgment, and Pang & Gimpel's pairwise "which is better overall" is not
    in this data; the unweighted mean of the three 1-5 aspects is the simplest proxy (range 1-5).
    """
    return table[list(ASPECTS)].mean(axis=1)


def system_means(table: pd.DataFrame) -> pd.DataFrame:
    """Per system (the index): the mean of each aspect and of overall_score over its rated rewrites, and their
    number `n` (table: one row per rated rewrite, with `system` and the ASPECTS columns)."""
    rated = table.assign(overall=overall_score(table))
    groups = rated.groupby("system")
    return groups[[*ASPECTS, "overall"]].mean().assign(n=groups.size())


def held_out_source(source: str, held_out: float = 0.3, salt: str = "") -> bool:
    """Deterministic split by source: sha256(salt + source) mapped to [0, 1) below `held_out`."""
    h = int(hashlib.sha256((salt + source).encode("utf-8")).hexdigest()[:12], 16)
    return h / 16**12 < held_out


def preference_pairs(
    table: pd.DataFrame,
    score=overall_score,
    min_diff: float = 0.0,
    exclude_systems=(),
    held_out: float = 0.3,
    salt: str = "",
) -> pd.DataFrame:
    """(y+, y-) pairs: same source, two systems, higher overall human score first; ties dropped.

    Pairs with |score difference| <= min_diff are dropped as ties (0 keeps every strict preference).
    Columns: source, source_style, line, system_plus, system_minus, output_plus, output_minus,
    score_plus, score_minus, held_out (split by source, see held_out_source).
    """
    t = table[~table["system"].isin(exclude_systems)].assign(_score=score(table))
    rows = []
    for (source, style, line), grp in t.groupby(["source", "source_style", "line"], sort=False):
        recs = grp.to_dict("records")
        for x, y in combinations(recs, 2):
            if abs(x["_score"] - y["_score"]) <= min_diff:
                continue
            p, m = (x, y) if x["_score"] > y["_score"] else (y, x)
            rows.append(
                {
                    "source": source,
                    "source_style": style,
                    "line": line,
                    "system_plus": p["system"],
                    "system_minus": m["system"],
                    "output_plus": p["output"],
                    "output_minus": m["output"],
                    "score_plus": p["_score"],
                    "score_minus": m["_score"],
                    "held_out": held_out_source(source, held_out, salt),
                }
            )
    return pd.DataFrame(rows)
