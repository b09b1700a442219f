"""Fluency candidates vs Li et al.'s grammaticality ratings (issue 22 item 7; not a test).

python bench/fluency_candidates.py --results RESULTS_DIR [--work /tmp/fluency_bench] [--threads 1]
    [--acceptability NAME ...] [--ensemble NAME ...] [--lm joint target]

RESULTS_DIR is a Yelp run's results/yelp (data/, evaluators/lm_joint.pt); Li et al.'s outputs are imported from
--data-dir as rule import_system does.
Every candidate gives one number per output of each of Li et al.'s 8 rated systems; the ratings are matched and
the correlations computed by tst.human.ratings / tst.human.correlation (as rule human_correlation does):
sentence level over every rated (source, system) row, system level over the 8 per-system means.

Candidates (higher = more fluent unless marked lower-is-better):
- pp_joint: tst.metrics.perplexity's per-sentence PP under lm_joint.pt (the pipeline's PP; lower is better);
- pp_no_eos: exp(mean NLL of the words only, <eos> left out) (lower is better);
- mean_lp, mean_lp_no_eos: mean token log-probability with / without <eos>;
- slor, slor_no_eos: (log P_LM(s) - log P_unigram(s)) / length (Kann et al. 2018; unigram from the training
  text, add-one, with <eos> counted once per sentence when included);
- norm_lp_div: -log P_LM(s) / log P_unigram(s); norm_lp_sub: log P_LM(s) - log P_unigram(s); word_lp_min1:
  min over words of -log P_LM(w_i | w_<i) / log P_unigram(w_i) (Lau et al. 2017); min_lp: the lowest word
  log-probability;
- *_target: the same under the LM of each output's target style (lm_style{0,1}.pt, that style's unigrams);
- acceptability_<name>: P(real) of a real-vs-corrupted classifier trained on the training text
  (tst.evaluators.acceptability), one per configuration in ACCEPTABILITY; trained once into --work, timed;
- acceptability_<ensemble> (--ensemble): the mean P(real) of the classifiers ENSEMBLES names (each trained as
  above and reported as a candidate of its own).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import yaml

from tst.data.systems import import_system
from tst.evaluators.acceptability import load_acceptability, train_acceptability, training_sentences
from tst.evaluators.language_model import load_lm
from tst.human.correlation import correlations, join_metrics
from tst.human.ratings import match_ratings, parse_ratings_csv, read_system_outputs
from tst.io import read_sentences
from tst.metrics.perplexity import perplexity
from tst.vocab import Vocab

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SYSTEMS = ["fader", "human", "label", "mit", "multi_decoder", "orgin", "retrieval", "rule_base"]
CNN = {"emb_dim": 128, "widths": [3, 4, 5], "n_filters": 128, "dropout": 0.5}
LSTM = {"emb_dim": 128, "hidden_dim": 128, "dropout": 0.2}
TRAIN = {"lr": 0.001, "batch_size": 64, "max_epochs": 3, "patience": 1, "seed": 1, "precision": "fp32"}
ALL = ["shuffle", "drop", "repeat", "swap", "replace", "splice"]
BRIEF = ALL[:4]  # shuffles, drops, repeats, adjacent swaps
# name: (classifier kind, model settings, corruption, strip final punctuation[, training settings over TRAIN])
ACCEPTABILITY = {
    "cnn_keep_punct_5kinds": ("text_cnn", CNN, {"kinds": ALL[:5], "max_ops": 2, "seed": 1}, False),
    "cnn_4kinds": ("text_cnn", CNN, {"kinds": BRIEF, "max_ops": 2, "seed": 1}, True),
    "cnn_6kinds": ("text_cnn", CNN, {"kinds": ALL, "max_ops": 2, "seed": 1}, True),
    "lstm_4kinds": ("lstm_classifier", LSTM, {"kinds": BRIEF, "max_ops": 2, "seed": 1}, True),
    "lstm_6kinds": ("lstm_classifier", LSTM, {"kinds": ALL, "max_ops": 2, "seed": 1}, True),
    # half the negatives: the sentence cut after 0..n-1 words and continued by sampling the LM (--sample-lm)
    "cnn_6kinds_lm50": ("text_cnn", CNN, {"kinds": ALL, "max_ops": 2, "seed": 1, "lm_share": 0.5}, True),
    "lstm_6kinds_lm50": (
        "lstm_classifier",
        LSTM,
        {"kinds": ALL, "max_ops": 2, "seed": 1, "lm_share": 0.5},
        True,
    ),
    "lstm_lm100": ("lstm_classifier", LSTM, {"kinds": ALL, "max_ops": 2, "seed": 1, "lm_share": 1.0}, True),
    "lstm_6kinds_lm50_ep6": (
        "lstm_classifier",
        LSTM,
        {"kinds": ALL, "max_ops": 2, "seed": 1, "lm_share": 0.5},
        True,
        {"max_epochs": 6},
    ),
    "lstm_6kinds_lm25_ep10": (
        "lstm_classifier",
        LSTM,
        {"kinds": ALL, "max_ops": 2, "seed": 1, "lm_share": 0.25},
        True,
        {"max_epochs": 10},
    ),
}
# Stop 22 (declared in docs/fluency.md before measuring): the default configuration (lstm_6kinds_lm50_ep6) with
# seed k and corruption seed k (members of a k-seed ensemble), and trained to convergence (15 epochs, patience 2).
DEFAULT = "lstm_6kinds_lm50_ep6"
CONV = {"max_epochs": 15, "patience": 2}


def seeded(name: str, seed: int, train: dict | None = None) -> tuple:
    """ACCEPTABILITY[name] with training seed and corruption seed `seed` and the training settings `train` on
    top of its own."""
    kind, model_cfg, corruption, strip, *more = ACCEPTABILITY[name]
    train_cfg = {**(more[0] if more else {}), **(train or {}), "seed": seed}
    return kind, model_cfg, {**corruption, "seed": seed}, strip, train_cfg


for _k in (2, 3):
    ACCEPTABILITY[f"{DEFAULT}_seed{_k}"] = seeded(DEFAULT, _k)
ACCEPTABILITY[f"{DEFAULT}_conv"] = seeded(DEFAULT, 1, CONV)
for _k in (2, 3):
    ACCEPTABILITY[f"{DEFAULT}_conv_seed{_k}"] = seeded(DEFAULT, _k, CONV)
# Stop 34 (declared in docs/fluency.md before measuring): all-MiniLM-L6-v2 fine-tuned as the classifier, on at most
# MINILM_MAX_TRAIN real sentences per style (tst.evaluators.acceptability.training_sentences), with the default's
# negatives (minilm) or the edits alone (minilm_edits: no LM needed).
MINILM = {"max_wordpieces": 64, "dropout": 0.1}
MINILM_TRAIN = {
    "lr": 5e-5,
    "batch_size": 32,
    "max_epochs": 2,
    "evals_per_epoch": 2,
    "patience": 2,
    "seed": 1,
    "precision": "auto",
}
MINILM_MAX_TRAIN = 5000
ACCEPTABILITY["minilm"] = (
    "minilm",
    MINILM,
    {"kinds": ALL, "max_ops": 2, "seed": 1, "lm_share": 0.5},
    True,
    MINILM_TRAIN,
)
ACCEPTABILITY["minilm_edits"] = (
    "minilm",
    MINILM,
    {"kinds": ALL, "max_ops": 2, "seed": 1},
    True,
    MINILM_TRAIN,
)
ACCEPTABILITY["minilm_edits_2k"] = (
    "minilm",
    MINILM,
    {"kinds": ALL, "max_ops": 2, "seed": 1},
    True,
    {**MINILM_TRAIN, "max_epochs": 1},
)
# Stop 36 (issue 28, declared in docs/fluency.md before measuring): minilm_edits at less arithmetic, for the
# evaluation stage's time: 1 epoch instead of 2, or the embeddings and the lowest 3 of the 6 layers frozen.
ACCEPTABILITY["minilm_edits_1ep"] = (
    "minilm",
    MINILM,
    {"kinds": ALL, "max_ops": 2, "seed": 1},
    True,
    {**MINILM_TRAIN, "max_epochs": 1},
)
ACCEPTABILITY["minilm_edits_frozen3"] = (
    "minilm",
    {**MINILM, "frozen_layers": 3},
    {"kinds": ALL, "max_ops": 2, "seed": 1},
    True,
    MINILM_TRAIN,
)
ACCEPTABILITY["minilm_edits_1ep_frozen3"] = (
    "minilm",
    {**MINILM, "frozen_layers": 3},
    {"kinds": ALL, "max_ops": 2, "seed": 1},
    True,
    {**MINILM_TRAIN, "max_epochs": 1},
)
# declared after the first two candidates' numbers (minilm_edits_frozen3: system +0.690, 0.01 short), before
# minilm_edits_1ep_frozen3's: the embeddings and layer 0 frozen, 2 epochs
ACCEPTABILITY["minilm_edits_frozen1"] = (
    "minilm",
    {**MINILM, "frozen_layers": 1},
    {"kinds": ALL, "max_ops": 2, "seed": 1},
    True,
    MINILM_TRAIN,
)
# real sentences per style; the others: every sentence
MAX_TRAIN = {
    "minilm": MINILM_MAX_TRAIN,
    "minilm_edits": MINILM_MAX_TRAIN,
    "minilm_edits_2k": 2000,
    "minilm_edits_1ep": MINILM_MAX_TRAIN,
    "minilm_edits_frozen3": MINILM_MAX_TRAIN,
    "minilm_edits_1ep_frozen3": MINILM_MAX_TRAIN,
    "minilm_edits_frozen1": MINILM_MAX_TRAIN,
}
# name: the ACCEPTABILITY members whose P(real) is averaged per sentence (acceptability_<name>)
ENSEMBLES = {
    "ens3": [DEFAULT, f"{DEFAULT}_seed2", f"{DEFAULT}_seed3"],
    "ens3_conv": [f"{DEFAULT}_conv", f"{DEFAULT}_conv_seed2", f"{DEFAULT}_conv_seed3"],
}
LOWER_IS_BETTER = {"pp_joint", "pp_no_eos", "pp_joint_target", "pp_no_eos_target"}


def lm_candidates(outputs: list[list[str]], lm, unigram_lp: np.ndarray, eos_lp: float) -> dict[str, list]:
    nll = lm.token_nll(outputs)
    out = {k: [] for k in ("pp_no_eos", "mean_lp", "mean_lp_no_eos", "slor", "slor_no_eos")}
    out |= {"norm_lp_div": [], "norm_lp_sub": [], "word_lp_min1": [], "min_lp": []}
    for s, x in zip(outputs, nll):
        ids = lm.vocab.encode(s)
        u = float(unigram_lp[ids].sum()) if ids else 0.0
        lp, lp_words = -float(x.sum()), -float(x[:-1].sum())
        n = len(ids)
        out["pp_no_eos"].append(math.exp(float(x[:-1].mean())) if n else None)
        out["mean_lp"].append(lp / (n + 1))
        out["mean_lp_no_eos"].append(lp_words / n if n else None)
        out["slor"].append((lp - (u + eos_lp)) / (n + 1))
        out["slor_no_eos"].append((lp_words - u) / n if n else None)
        out["norm_lp_div"].append(-lp / (u + eos_lp))
        out["norm_lp_sub"].append(lp - (u + eos_lp))
        w_lp = -x[:-1]
        out["word_lp_min1"].append(float((-w_lp / unigram_lp[ids]).min()) if n else None)
        out["min_lp"].append(float(w_lp.min()) if n else None)
    out["pp_joint"] = perplexity(outputs, lm).per_sentence
    return out


def unigram_logprobs(train: list[list[str]], vocab: Vocab) -> tuple[np.ndarray, float]:
    counts = Counter(i for s in train for i in vocab.encode(s))
    c = np.ones(len(vocab))  # add-one
    for i, k in counts.items():
        c[i] += k
    c[vocab.eos_id] += len(train) - 1
    lp = np.log(c / c.sum())
    return lp, float(lp[vocab.eos_id])


def li_outputs(data_dir: Path) -> dict[str, list[list[str]]]:
    """Li et al.'s systems' test outputs, style-0 sources then style-1, imported as rule import_system does
    (configs/yelp.yaml's specs, tst.data.systems.import_system)."""
    ds = yaml.safe_load((REPO / "configs/yelp.yaml").read_text())["datasets"]["yelp"]
    return {
        s: [o.split() for st in (0, 1) for o in import_system(ds["systems"][s], ds, data_dir, st)[1]]
        for s in SYSTEMS
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", required=True, type=Path)
    ap.add_argument("--evaluators", type=Path, help="folder of the LMs (default RESULTS_DIR/evaluators)")
    ap.add_argument("--work", default=Path("/tmp/fluency_bench"), type=Path)
    ap.add_argument("--ratings", default=None, type=Path)
    ap.add_argument("--li-outputs", default=None, type=Path)
    ap.add_argument("--data-dir", default=DATA, type=Path, help="released corpora (TST_DATA_DIR)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--acceptability", nargs="*", default=list(ACCEPTABILITY), choices=list(ACCEPTABILITY))
    ap.add_argument(
        "--ensemble",
        nargs="*",
        default=[],
        choices=list(ENSEMBLES),
        help="mean P(real) of ENSEMBLES' members",
    )
    ap.add_argument("--sample-lm", default="lm_joint.pt", help="LM file continuing sentences (lm_share)")
    ap.add_argument("--lm", nargs="*", default=["joint", "target"], choices=["joint", "target"])
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    args.ratings = args.ratings or args.data_dir / "yelp/li/human_ratings/ratings-yelp.csv"
    args.li_outputs = args.li_outputs or args.data_dir / "yelp/li/outputs"
    args.work.mkdir(parents=True, exist_ok=True)
    args.evaluators = args.evaluators or args.results / "evaluators"
    data = args.results / "data"
    per_style = [read_sentences(data / "train.0.txt"), read_sentences(data / "train.1.txt")]
    train = per_style[0] + per_style[1]
    dev = read_sentences(data / "dev.0.txt") + read_sentences(data / "dev.1.txt")
    vocab = Vocab.load(data / "vocab.txt")
    outputs = li_outputs(args.data_dir)
    values: dict[str, dict[str, list]] = {s: {} for s in SYSTEMS}
    info = {}
    if "joint" in args.lm:
        lm = load_lm(args.evaluators / "lm_joint.pt", torch.device("cpu"))
        ulp, eos_lp = unigram_logprobs(train, lm.vocab)
        for s in SYSTEMS:
            values[s].update(lm_candidates(outputs[s], lm, ulp, eos_lp))
    if "target" in args.lm:  # each output under the LM of its target style, unigrams of that style
        n0 = len(read_sentences(data / "test.0.txt"))
        for target, rows in ((1, slice(0, n0)), (0, slice(n0, None))):
            lm = load_lm(args.evaluators / f"lm_style{target}.pt", torch.device("cpu"))
            ulp, eos_lp = unigram_logprobs(read_sentences(data / f"train.{target}.txt"), lm.vocab)
            for s in SYSTEMS:
                for k, v in lm_candidates(outputs[s][rows], lm, ulp, eos_lp).items():
                    values[s].setdefault(f"{k}_target", []).extend(v)
    members = [m for e in args.ensemble for m in ENSEMBLES[e]]
    for name in dict.fromkeys([*args.acceptability, *members]):  # an ensemble's members are candidates too
        kind, model_cfg, corruption, strip, *more = ACCEPTABILITY[name]
        train_cfg = {**TRAIN, **(more[0] if more else {})}
        path = args.work / f"acceptability_{name}.pt"
        if not path.exists():
            t0 = time.perf_counter()
            lm = None
            if corruption.get("lm_share"):
                lm = load_lm(args.evaluators / args.sample_lm, torch.device("cpu"))
            real = (
                training_sentences(per_style, MAX_TRAIN[name], corruption["seed"])
                if name in MAX_TRAIN
                else train
            )
            ckpt = train_acceptability(real, dev, vocab, kind, model_cfg, train_cfg, corruption, strip, lm)
            ckpt["sample_lm"] = args.sample_lm
            ckpt["metrics"]["train_seconds"] = time.perf_counter() - t0
            torch.save(ckpt, path)
        ck = torch.load(path, map_location="cpu", weights_only=True)
        info[name] = {
            "dev_accuracy": ck["metrics"]["dev_accuracy"],
            "train_seconds": round(ck["metrics"]["train_seconds"], 1),
            "epochs": len(ck["metrics"]["epochs"]),
            "sample_lm": ck.get("sample_lm"),
            "negatives": ck["acceptability"]["train"],
        }
        model = load_acceptability(path, torch.device("cpu"))
        for s in SYSTEMS:
            values[s][f"acceptability_{name}"] = model.p_real(outputs[s]).tolist()
    for name in args.ensemble:
        info[name] = {"members": ENSEMBLES[name]}
        for s in SYSTEMS:
            p = [values[s][f"acceptability_{m}"] for m in ENSEMBLES[name]]
            values[s][f"acceptability_{name}"] = np.mean(p, axis=0).tolist()
    store = args.work / "values.json"  # every candidate measured so far (runs add to it)
    saved = json.loads(store.read_text()) if store.exists() else {"values": {}, "info": {}}
    for s in SYSTEMS:
        saved["values"].setdefault(s, {}).update(values[s])
    saved["info"].update(info)
    store.write_text(json.dumps(saved))
    values, info = saved["values"], saved["info"]
    print(json.dumps(info))
    table, _ = match_ratings(parse_ratings_csv(args.ratings), read_system_outputs(args.li_outputs))
    n_style0 = len(read_sentences(args.results / "data/test.0.txt"))
    metrics = {s: pd.DataFrame(v) for s, v in values.items()}
    joined = join_metrics(table, metrics, n_style0=n_style0)
    keys = list(next(iter(values.values())))
    corr = correlations(joined, {k: "grammaticality" for k in keys})
    corr["expected_sign"] = [-1 if m in LOWER_IS_BETTER else 1 for m in corr["metric"]]
    corr.to_csv(args.work / "correlations.csv", index=False, float_format="%.6g")
    joined.to_csv(args.work / "joined.tsv", sep="\t", index=False)
    wide = corr.pivot(index="metric", columns="level", values=["spearman", "kendall"]).loc[keys]
    wide.columns = [f"{lvl}_{stat}" for stat, lvl in wide.columns]
    wide.insert(0, "sign", corr.groupby("metric")["expected_sign"].first().loc[keys])
    print(wide[["sign", "system_spearman", "sentence_spearman", "sentence_kendall"]].round(3).to_markdown())
    means = joined.groupby("system")[["grammaticality", *keys]].mean().sort_values("grammaticality")
    print(means.round(3).to_markdown())


if __name__ == "__main__":
    main()
