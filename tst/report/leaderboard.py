"""The leaderboard: every system of a dataset on its test set under the headline metrics, each score with its
95% paired-bootstrap interval and its significance cluster (tst.bootstrap), rows sorted by the default GM.

Rows, marked as the other tables mark them (tst.report.tables): the published systems, the human references,
the untransferred source and the sanity baselines as scored; our models at the checkpoint the Pang & Gimpel
table selects (per seed, the dev checkpoint whose Acc is closest to the target). Our seeds are NOT averaged:
a mean over seeds has no per-sentence values to resample, so each seed's selected checkpoint is its own row
(`{variant}.seed{seed}`), and the spread between seeds shows beside the bootstrap's.

The resamples come from each system's score files: the JSON's metrics and the per-sentence TSV beside it
(`test.final.tsv` next to `test.final.json`), written with the `key:stat` columns of PP and corpus BLEU
(tst.scoring.write.write_score_tsv(..., resample_stats=True)); tst.bootstrap.results_from_tsv rebuilds what the
bootstrap needs and GM is recomputed on every resample from its resampled factors. Every system is resampled
with the same (n, resamples, seed), so on the same sentences: paired. Systems whose TSV lists another
sequence of source styles or another number of sentences than the most common one are on other sentences:
they get their interval but no cluster (named in the notes).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import pandas as pd

from tst import names
from tst.bootstrap import (
    METHOD,
    bootstrap_samples,
    percentile_interval,
    resolve,
    results_from_tsv,
    significance,
)
from tst.human.ratings import system_means
from tst.io import InputError, read_json, read_lines
from tst.metrics.gm import GM_FACTORS
from tst.report.scores import MetricInfo, digits, external
from tst.report.select import select_checkpoints, selected_rows
from tst.report.table_writer import Table, fmt
from tst.report.tables import _external_order, _header, _kind, _marks, _warmup_note, definitions

log = logging.getLogger(__name__)

# The measures people agree with first: the default GM and its three factors (GM_FACTORS: style, content, acceptability,
# docs/style_and_gm.md), the references-based score; then Pang & Gimpel's own (Acc, Sim, PP, their GM), labelled
# theirs. Each column's agreement with people stays in the report (tables metric_vs_human, aggregation).
PANG_GIMPEL = ("acc", "sim", "pp_joint", "gm_pg")


def headline_keys(info: dict[str, MetricInfo], s: dict) -> list[str]:
    """The leaderboard's metric columns present in `info`, in order: GM, Style, Content, Accept, ref-BLEU, then
    Pang & Gimpel's Acc, Sim, PP and GM (s: tst.report.build.settings)."""
    keys = [s["gm_key"], *GM_FACTORS, s["bleu_key"], s["acc_key"], s["sim_key"], s["pp_key"], "gm_pg"]
    return [k for k in dict.fromkeys(keys) if k in info]


def column_header(info: dict[str, MetricInfo], key: str) -> str:
    """A leaderboard column's header: Pang & Gimpel's own metrics say so."""
    if key == "gm_pg" or key not in PANG_GIMPEL or key not in info:
        return _header(info, key)
    return f"{info[key].label} (P&G) {info[key].arrow}"


def sort_key(info: dict[str, MetricInfo], s: dict) -> str | None:
    """The metric the rows are sorted by: the default GM (settings' gm_key), else GM (P&G), else Acc."""
    return next((k for k in (s["gm_key"], "gm_pg", s["acc_key"]) if k in info), None)


def _index(score_paths) -> dict[tuple, Path]:
    """(system, split, checkpoint) -> score JSON path."""
    out = {}
    for p in score_paths:
        rec = read_json(p)
        out[(rec.get("system"), rec.get("split"), str(rec.get("checkpoint")))] = Path(p)
    return out


def leaderboard_systems(
    frame: pd.DataFrame,
    target_acc: float,
    tolerance: float,
    acc_key: str = "acc",
    warmups: dict[str, float] | None = None,
) -> tuple[list[dict], list[str]]:
    """The rows before scoring: external systems' test rows (published, references, untransferred,
    baselines) and each (variant, seed)'s test row at its selected checkpoint. Each: system, label, kind,
    seed, checkpoint, off_target, before_cycle, and the frame row (`row`). Also the selected checkpoints
    without test scores."""
    out = []
    ext = external(frame)
    ext = ext[ext["split"] == "test"]
    for system in _external_order(set(ext["system"])):
        r = ext[ext["system"] == system].iloc[0]
        label = names.display_name(system)
        out.append(
            {
                "system": system,
                "label": label,
                "kind": _kind(system),
                "seed": None,
                "checkpoint": str(r["checkpoint"]),
                "off_target": False,
                "before_cycle": False,
                "row": r,
            }
        )
    selection = select_checkpoints(frame, target_acc, tolerance, acc_key)
    rows = selected_rows(frame, selection, "test")
    for r in rows.sort_values(["variant", "seed"]).to_dict("records") if len(rows) else []:
        until = (warmups or {}).get(r["variant"])
        out.append(
            {
                "system": r["system"],
                "label": r["system"],
                "variant": r["variant"],
                "kind": "ours",
                "seed": int(r["seed"]),
                "checkpoint": str(r["checkpoint"]),
                "off_target": not r["within"],
                "before_cycle": until is not None and float(r["epoch"]) <= until,
                "row": pd.Series(r),
            }
        )
    chosen = {(s.system, s.checkpoint) for s in selection.itertuples()} if len(selection) else set()
    found = {(r["system"], r["checkpoint"]) for r in out if r["kind"] == "ours"}
    return out, sorted(f"{s} {c}" for s, c in chosen - found)


def source_styles(tsv) -> tuple[int, ...]:
    """The `source_style` column of a per-sentence score TSV: which sentences a system was scored on."""
    lines = read_lines(tsv)
    j = lines[0].split("\t").index("source_style")
    return tuple(int(line.split("\t")[j]) for line in lines[1:])


def system_samples(json_path, options: dict, gm_t=None, calibration=None) -> dict:
    """One system's resampled metrics from its score JSON and the TSV beside it: {"samples": key -> values on
    the shared resamples, "skipped": key -> why not, "styles": the TSV's source styles} or {"why": ...} when
    there is no TSV."""
    tsv = Path(json_path).with_suffix(".tsv")
    if not tsv.exists():
        return {"why": f"no per-sentence TSV ({tsv.name}) beside {Path(json_path).name}"}
    rec = read_json(json_path)
    styles = source_styles(tsv)
    if len(styles) != rec["n_sentences"]:
        raise InputError(
            f"{tsv}: {len(styles)} sentences, but {json_path} says n_sentences {rec['n_sentences']}: the two "
            "score files are from different runs; score the system again"
        )
    results = results_from_tsv(rec.get("metrics") or {}, tsv)
    samples, skipped = bootstrap_samples(results, len(styles), options, gm_t, calibration)
    return {"samples": samples, "skipped": skipped, "styles": styles}


def cell_value(row, key) -> float | None:
    """A frame row's value of `key` as a float, None when absent or NaN."""
    v = row.get(key) if key in row else None
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


HUMAN = "human_"  # CSV column prefix of the human ratings


def human_columns(rated) -> pd.DataFrame | None:
    """Per rated system (the index): the mean human rating of each aspect and overall over its rated rewrites,
    and their number `n` (tst.human.ratings.system_means of human/ratings_with_metrics.tsv); None without a
    ratings file."""
    if not rated or not Path(rated).exists():
        return None
    return system_means(pd.read_csv(rated, sep="\t"))


def human_correlations(
    records: list[dict], keys: list[str], bleu_key: str | None = None
) -> tuple[dict[str, float], list[str]]:
    """Each metric's system-level Spearman with the overall human rating, over the leaderboard rows that have
    both (at least 3 systems, else no value; the references left out of bleu_key, BLEU against themselves);
    also the rated systems."""
    from scipy import stats

    both = [r for r in records if r.get(f"{HUMAN}overall") is not None]
    out = {}
    for k in keys:
        rows = [r for r in both if r[k] is not None and not (k == bleu_key and r["kind"] == "references")]
        if len(rows) >= 3:
            out[k] = float(
                stats.spearmanr([r[k] for r in rows], [r[f"{HUMAN}overall"] for r in rows]).statistic
            )
    return out, [r["system"] for r in both]


def human_notes(
    human: pd.DataFrame, records: list[dict], info: dict[str, MetricInfo], keys: list[str], bleu_key: str
) -> list[str]:
    """The footnotes of the human columns: what they are, and each metric's agreement with them."""
    rho, systems = human_correlations(records, keys, bleu_key)
    aspects = [a for a in human.columns if a not in ("overall", "n")]
    note = (
        f"Human ↑: the mean human rating (1–5) of a system's rated rewrites per aspect ({', '.join(aspects)}); "
        f"overall = the mean of the {len(aspects)}; {int(human['n'].min())}–{int(human['n'].max())} rated "
        "rewrites per system; blank: not rated."
    )
    notes = [note]
    if rho:
        parts = "; ".join(f"{_header(info, k)} ρ = {v:.2f}" for k, v in rho.items())
        notes.append(
            f"Agreement with people: system-level Spearman of each metric with the overall human rating over the "
            f"{len(systems)} rated systems here ({', '.join(systems)}): {parts} (a ↓ metric should be negative)."
        )
    return notes


def leaderboard_table(
    frame: pd.DataFrame,
    info: dict[str, MetricInfo],
    score_paths,
    s: dict,
    bootstrap: dict | None = None,
    gm_t=None,
    calibration: dict | None = None,
    warmups: dict[str, float] | None = None,
    name: str = "leaderboard",
    rated=None,
) -> Table:
    """The leaderboard (module docstring). frame, info: load_scores of score_paths (GM recomputed with gm_t
    and calibration, as the resamples are); s: the report settings (tst.report.build.settings); bootstrap: the
    resampling options (tst.stages.bootstrap_options; None: tst.bootstrap.DEFAULTS); rated: the human ratings
    joined with the metrics (human/ratings_with_metrics.tsv), when the dataset has them: columns `human_{aspect}`,
    `human_overall`, `human_n` (human_columns) and a note with each metric's system-level Spearman with the
    overall rating (human_correlations). CSV: a row per system with, per metric, `{key}`, `{key}_lo`, `{key}_hi`
    (the interval) and `{key}_cluster`."""
    opt = resolve(bootstrap)
    keys = headline_keys(info, s)
    by = sort_key(info, s)
    meta = ["rank_by", "system", "kind", "seed", "checkpoint", "off_target", "before_cycle"]
    cols = meta + [f"{k}{x}" for k in keys for x in ("", "_lo", "_hi", "_cluster")]
    human = human_columns(rated)
    if human is not None:
        cols += [f"{HUMAN}{c}" for c in human.columns]
    table = Table(
        name,
        f"Leaderboard on the test set: every system, sorted by {_header(info, by) if by else 'name'}; each "
        "cell: score [95% confidence interval] (significance cluster, 1 = best).",
        pd.DataFrame(columns=cols),
        ["System", "kind", "checkpoint"]
        + [column_header(info, k) for k in keys]
        + ([f"Human {a} ↑" for a in human.columns if a != "n"] if human is not None else []),
        sortable=True,
    )
    systems, missing = leaderboard_systems(frame, s["target_acc"], s["tolerance"], s["acc_key"], warmups)
    if not systems:
        table.empty = "No test scores in these score files."
        return table
    index = _index(score_paths)
    no_ci, groups = {}, {}  # label -> why some metric has no interval; source styles -> systems
    for r in systems:
        path = index[(r["system"], "test", r["checkpoint"])]
        got = system_samples(path, opt, gm_t, calibration)
        if "why" in got:
            no_ci[r["label"]] = got["why"]
            r["samples"] = {}
            continue
        r["samples"] = got["samples"]
        why = sorted({got["skipped"][k] for k in keys if k in got["skipped"]})
        if why:
            no_ci[r["label"]] = "; ".join(why)
        groups.setdefault(got["styles"], []).append(r)
    # the paired comparison: the systems on the most common sentences (the test set)
    paired = max(groups.values(), key=len) if groups else []
    others = [r["label"] for g in groups.values() if g is not paired for r in g]
    observed, samples = {}, {}
    for r in paired:
        obs = {k: cell_value(r["row"], k) for k in keys}
        if r["kind"] == "references":  # BLEU of the references against themselves: not ranked
            obs[s["bleu_key"]] = None
        observed[r["label"]] = obs
        samples[r["label"]] = {k: v for k, v in r["samples"].items() if k in keys}
    ranked = significance(observed, samples)
    records = []
    for r in systems:
        rec = {c: r.get(c) for c in meta[1:]}
        rec["system"] = r["label"]
        for k in keys:
            v = cell_value(r["row"], k)
            ci = (ranked.get(k, {}).get(r["label"]) or {}).get("ci95")
            if ci is None and k in r["samples"] and r["label"] not in observed:
                ci = percentile_interval(r["samples"][k])
            cl = (ranked.get(k, {}).get(r["label"]) or {}).get("cluster")
            rec[k] = v
            rec[f"{k}_lo"], rec[f"{k}_hi"] = ci if ci else (None, None)
            rec[f"{k}_cluster"] = cl
        rec["rank_by"] = by
        if human is not None:
            got = human.loc[r["system"]] if r["system"] in human.index else None
            rec.update({f"{HUMAN}{c}": None if got is None else got[c] for c in human.columns})
        records.append(rec)
    if by:
        higher = info[by].higher_is_better
        records.sort(
            key=lambda x: (x[by] is None, -(x[by] or 0.0) if higher else (x[by] or 0.0), x["system"])
        )
    table.data = pd.DataFrame(records, columns=cols)
    for rec in records:
        mark = _marks(rec) + (" ◦" if rec["kind"] == "baseline" else "")
        cells = [rec["system"] + mark, rec["kind"], rec["checkpoint"]]
        for k in keys:
            d = digits(k)
            if rec[k] is None:
                cells.append("")
                continue
            cell = fmt(rec[k], d)
            if rec[f"{k}_lo"] is not None:
                cell += f" [{fmt(rec[f'{k}_lo'], d)}, {fmt(rec[f'{k}_hi'], d)}]"
            if rec[f"{k}_cluster"] is not None:
                cell += f" ({rec[f'{k}_cluster']})"
            cells.append(cell)
        if human is not None:
            cells += [fmt(rec[f"{HUMAN}{a}"], 2) for a in human.columns if a != "n"]
        table.rows.append(cells)
    table.notes = definitions(info, keys)
    if human is not None:
        table.notes += human_notes(human, records, info, keys, s["bleu_key"])
    table.notes.append(
        "Interval and clusters: "
        + METHOD.format(**opt)
        + ". Cluster (k): systems sorted best first; a system "
        "opens a new cluster when it differs from the current cluster's best at p < 0.05 (two-sided paired "
        "bootstrap, Koehn 2004); systems in one cluster are not separable on this test set."
    )
    if any(r["kind"] == "ours" for r in systems):
        table.notes.append(
            f"Ours: one row per seed ({{variant}}.seed{{seed}}), at the dev checkpoint whose {_header(info, s['acc_key']).split(' ')[0]} "
            f"is closest to {s['target_acc']:g} (as in the Pang & Gimpel table); not averaged over seeds, since a "
            "seed mean has no per-sentence values to resample."
        )
    if any(r["off_target"] for r in systems):
        table.notes.append(f"† no dev checkpoint within ± {s['tolerance']:g} of the target Acc.")
    table.notes += _warmup_note(
        [{"variant": r.get("variant"), "before_cycle": r["before_cycle"]} for r in systems], warmups
    )
    if any(r["kind"] == "baseline" for r in systems):
        table.notes.append("◦ a sanity baseline (no training; validity table).")
    refs = [r["label"] for r in systems if r["kind"] == "references"]
    if refs and s["bleu_key"] in keys:
        table.notes.append(
            f"{', '.join(refs)}: the human references; not ranked on {_header(info, s['bleu_key'])} "
            "(BLEU against themselves)."
        )
    lacking = {
        rec["system"]: [
            _header(info, k)
            for k in keys
            if rec[k] is not None
            and rec[f"{k}_lo"] is None
            and not (rec["kind"] == "references" and k == s["bleu_key"])
        ]
        for rec in records
    }
    lacking = {sys_: ks for sys_, ks in lacking.items() if ks}
    if lacking:
        table.notes.append(
            "Without an interval or cluster: "
            + "; ".join(
                f"{sys_} on {', '.join(ks)}" + (f" ({no_ci[sys_]})" if sys_ in no_ci else "")
                for sys_, ks in lacking.items()
            )
            + " (a GM has one only when each of its factors has)."
        )
    if others:
        table.notes.append(
            f"Scored on other sentences than the rest (another number or order of source styles), so not "
            f"compared: {', '.join(others)}."
        )
    if missing:
        table.notes.append(f"Selected on dev but without test scores (left out): {', '.join(missing)}.")
    return table
