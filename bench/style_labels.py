"""The style classifier's label candidates against Li et al.'s human sentiment ratings (docs/style_and_gm.md).

Trains each candidate (all-MiniLM-L6-v2, the evaluators.minilm recipe of config.yaml) on a prepared run's training
split, with or without SST-2's sentence-level labels, and reports per candidate the Spearman correlation of its
P(target style) with people's sentiment rating at sentence and system level (Li et al.'s 8 rated systems), the
references' rank, read whole and by parts (tst.nlp.parts), the training time and peak memory:

    python bench/style_labels.py --run results/yelp --data-dir "$TST_DATA_DIR" --out runs/style_labels

Checkpoints are kept in --out and reused; the table is printed and written to --out/table.json. With
--classifier, one trained style classifier (a stage's evaluators/style_minilm.pt) is read instead, the three ways:
whole, by the output's own parts (the source not read), and by parts (R, the style score: the source's kept
material read apart too):

    python bench/style_labels.py --classifier results/yelp/evaluators/style_minilm.pt --data-dir "$TST_DATA_DIR"

With --mixed as well, the rewrites the style score reads as mixed, and how readings of them agree with people
(docs/style_and_gm.md, the mixed reading).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np
import torch
import yaml
from scipy import stats

from tst.data.sentence_labels import read_sst2, sample_by_label
from tst.data.splits import sample_train
from tst.evaluators.classifiers import load_classifier, train_minilm
from tst.human.ratings import match_ratings, parse_ratings_csv, read_system_outputs
from tst.io import read_sentences
from tst.metrics.style import part_probs, target_probs

# name -> (dataset sentences per style, SST-2 sentences per label, how SST-2 joins, counterfactuals)
CANDIDATES = {
    "control": (5000, 0, None, False),
    "mixed": (5000, 5000, "mixed", False),
    "first": (5000, 5000, "first", False),
    "mixed_neg": (2500, 2500, "mixed", True),
    "first_neg": (2500, 2500, "first", True),
}


def recipe() -> dict:
    cfg = yaml.safe_load((Path(__file__).resolve().parent.parent / "config.yaml").read_text())["evaluators"][
        "minilm"
    ]
    return dict(cfg)


def train_candidate(name, run: Path, sst2: Path, seed: int, precision: str) -> tuple[dict, dict]:
    n_data, n_sst, how, neg = CANDIDATES[name]
    cfg = recipe()
    cfg.pop("max_train"), cfg.pop("max_dev")
    cfg.update(seed=seed, counterfactuals=neg, precision=precision)
    model_cfg = {k: cfg.pop(k) for k in ("max_wordpieces", "frozen_layers", "dropout")}
    train, y = [], []
    for style in (0, 1):
        pool = [" ".join(s) for s in read_sentences(run / "data" / f"train.{style}.txt")]
        s = sample_train(pool, n_data, seed + style)
        train += [t.split() for t in s]
        y += [style] * len(s)
    dev, dev_y = [], []
    for style in (0, 1):
        pool = [" ".join(s) for s in read_sentences(run / "data" / f"dev.{style}.txt")]
        s = sample_train(pool, 1000, seed + style)
        dev += [t.split() for t in s]
        dev_y += [style] * len(s)
    first = None
    if n_sst:
        sst_s, sst_y = sample_by_label(*read_sst2(sst2), n_sst, seed)
        if how == "mixed":
            train, y = train + sst_s, y + sst_y
        else:
            first = (sst_s, sst_y)
    t0 = time.perf_counter()
    ckpt = train_minilm(train, y, dev, dev_y, model_cfg, cfg, log=print, first=first)
    cost = {
        "train_s": round(time.perf_counter() - t0, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    return ckpt, cost


def rated_rows(data_dir: Path, dataset: str):
    li = data_dir / dataset / "li"
    outs = read_system_outputs(li / "outputs")
    table, _ = match_ratings(parse_ratings_csv(next((li / "human_ratings").glob("*.csv"))), outs)
    return table


def agreement(table, p: np.ndarray) -> dict:
    t = table.assign(p=p)
    sent = stats.spearmanr(t["p"], t["sentiment"]).statistic
    by = t.groupby("system")[["p", "sentiment"]].mean()
    system = stats.spearmanr(by["p"], by["sentiment"]).statistic
    rank = int((by["p"] > by.loc["human", "p"]).sum()) + 1 if "human" in by.index else None
    return {"sentence": round(float(sent), 4), "system": round(float(system), 4), "references_rank": rank}


def readings(clf, table) -> dict[str, np.ndarray]:
    """P(target) of each rated rewrite read whole, by its own parts (the source not read), and by parts (R, the
    style score: the source's kept material read apart too)."""
    out = [s.split() for s in table["output"]]
    src = [s.split() for s in table["source"]]
    target = (1 - table["source_style"]).to_numpy()
    return {
        "whole": target_probs(out, target, clf),
        "own_parts": part_probs(out, [None] * len(out), target, clf),
        "parts": part_probs(out, src, target, clf),
    }


def evaluate(clf, table) -> dict:
    return {name: agreement(table, p) for name, p in readings(clf, table).items()}


def mixed_readings(clf, table) -> dict:
    """The rated rewrites that R reads as mixed (R below the least own part: tst.metrics.style.part_probs), and
    how readings of them agree with people: Spearman within them, and the style score's agreement when R gives
    them half the reading (own: the shipped R; whole: the whole output) or, as a bound, people's own rating
    scaled into [0, 1/2]."""
    read = readings(clf, table)
    whole, own, r = read["whole"], read["own_parts"], read["parts"]
    mixed = r < own
    people = table["sentiment"].to_numpy(dtype=float)
    bound = r.copy()
    bound[mixed] = 0.5 * (people[mixed] - 1) / 4  # ratings 1-5 -> [0, 1/2]
    within = {
        name: round(float(stats.spearmanr(p[mixed], people[mixed]).statistic), 4)
        for name, p in (("own", own), ("whole", whole))
    }
    return {
        "n_mixed": int(mixed.sum()),
        "within_mixed": within,
        "own/2": agreement(table, np.where(mixed, own / 2, own)),
        "whole/2": agreement(table, np.where(mixed, whole / 2, own)),
        "bound": agreement(table, bound),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--run", type=Path, help="a prepared run's folder, e.g. results/yelp (to train candidates)"
    )
    ap.add_argument(
        "--classifier", type=Path, help="read this trained style classifier instead of candidates"
    )
    ap.add_argument(
        "--data-dir", type=Path, required=True, help="the data folder (li ratings, sst2/train.tsv)"
    )
    ap.add_argument("--out", type=Path, help="where candidates are trained and the table written")
    ap.add_argument(
        "--mixed", action="store_true", help="with --classifier: the readings of the mixed rewrites instead"
    )
    ap.add_argument("--candidates", nargs="+", default=list(CANDIDATES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--precision", default="fp32")
    ap.add_argument(
        "--also", nargs="*", default=["amazon"], help="other rated datasets to report (their Li ratings)"
    )
    a = ap.parse_args()
    if a.classifier is None and (a.run is None or a.out is None):
        ap.error("give --run and --out (train the candidates), or --classifier (read one)")
    torch.manual_seed(a.seed)
    tables = {"yelp": rated_rows(a.data_dir, "yelp")}
    tables |= {
        d: rated_rows(a.data_dir, d) for d in a.also if (a.data_dir / d / "li" / "human_ratings").exists()
    }
    if a.classifier is not None:
        clf = load_classifier(a.classifier)
        read = mixed_readings if a.mixed else evaluate
        print(json.dumps({d: read(clf, table) for d, table in tables.items()}, indent=1))
        return
    a.out.mkdir(parents=True, exist_ok=True)
    results = json.loads((a.out / "table.json").read_text()) if (a.out / "table.json").exists() else {}
    for name in a.candidates:
        path = a.out / f"{name}.seed{a.seed}.pt"
        key = f"{name}.seed{a.seed}"
        if not path.exists():
            ckpt, cost = train_candidate(name, a.run, a.data_dir / "sst2" / "train.tsv", a.seed, a.precision)
            torch.save(ckpt, path)
            results.setdefault(key, {})["cost"] = cost
            results[key]["dev_accuracy"] = ckpt["metrics"]["dev_accuracy"]
        clf = load_classifier(path)
        for d, table in tables.items():
            results.setdefault(key, {})[d] = evaluate(clf, table)
        print(key, json.dumps(results[key]), flush=True)
        (a.out / "table.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
