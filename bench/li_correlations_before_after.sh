#!/usr/bin/env bash
# Metric-vs-human correlations on Li et al.'s Yelp ratings, before and after the metric fixes (issue 11):
# "before" = commit 0496811's code (a detached worktree) with the evaluators it builds differently rebuilt
# (style lexicon: old threshold; word2vec_masked: masks that lexicon; glove/word2vec: no source token);
# "after" = this checkout's code. Both score the 8 Li systems on the same CNN, LSTM, LMs and idf of a Yelp
# run, then tst.human.correlation writes one CSV per side and a markdown table of the Spearman values.
#   bench/li_correlations_before_after.sh RESULTS_DIR [OUT_DIR]   (RESULTS_DIR e.g. ../yelp/results/yelp)
# Naturalness (its classifiers changed meaning) and attribute_hit are not scored. CPU-heavy: run niced.
set -euo pipefail
RES=$(realpath "$1"); OUT=$(realpath -m "${2:-/tmp/li_corr}"); BEFORE=0496811
REPO=$(git rev-parse --show-toplevel); OLD=${OLD:-$OUT/old_code}  # the before code
DATA_DIR=$(realpath "${TST_DATA_DIR:-$REPO/../shared/data}")  # holds yelp/li/human_ratings and yelp/li/outputs
mkdir -p "$OUT"
[ -d "$OLD" ] || git -C "$REPO" worktree add --detach "$OLD" "$BEFORE"
[ -e "$OLD/.venv" ] || ln -s "$(realpath "$REPO/.venv")" "$OLD/.venv"

side() {  # side NAME CODE_DIR
  mkdir -p "$OUT/$1/evaluators"
  for f in style_cnn.pt style_lstm.pt idf.json glove.kv word2vec.kv word2vec_masked.kv style_lexicon.json \
           lm_joint.pt lm_style0.pt lm_style1.pt; do
    if [ -f "$RES/evaluators/$f" ]; then cp "$RES/evaluators/$f" "$OUT/$1/evaluators/"; fi
  done
  (cd "$2" && PYTHONPATH="$2" nice -n 19 "$2/.venv/bin/python" - "$1" "$RES" "$OUT/$1" "$DATA_DIR" <<'EOF'
import json, sys, yaml
from pathlib import Path
from tst.human.correlation import correlations, load_rated_metrics
from tst.score import Evaluators, score_files, score_meta
side, res, out, data_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
ev_dir, cfg = out / "evaluators", yaml.safe_load(open("config.yaml"))
if side == "before":  # rebuild with the old code what it builds differently (rules/evaluators.smk)
    from tst.evaluators.embeddings import load_glove, train_word2vec
    from tst.evaluators.style_lexicon import build_style_lexicon, mask_style_words
    from tst.io import read_sentences, write_json
    ev = cfg["evaluators"]
    s0, s1 = (read_sentences(res / f"data/train.{s}.raw.txt") for s in "01")
    lex = build_style_lexicon(s0, s1, **ev["style_lexicon"])
    write_json(ev_dir / "style_lexicon.json", lex)
    w2v = {k: ev["word2vec"][k] for k in ("dim", "window", "min_count", "epochs", "sg", "seed")}
    train_word2vec(s0 + s1, **w2v).save(ev_dir / "word2vec.kv")
    train_word2vec([mask_style_words(s, lex) for s in s0 + s1], **w2v).save(ev_dir / "word2vec_masked.kv")
    vocab = {t for sp in ("train", "dev", "test") for s in "01" for t in
             (w for x in read_sentences(res / f"data/{sp}.{s}.raw.txt") for w in x)}
    g = ev["glove"]
    load_glove(g.get("source"), vocab=vocab, member=g.get("member")).save(ev_dir / "glove.kv")
lex = json.load(open(ev_dir / "style_lexicon.json"))
print(side, "lexicon sizes (style 0, style 1):", len(lex["0"]), len(lex["1"]), flush=True)
systems = ["fader", "human", "label", "mit", "multi_decoder", "orgin", "retrieval", "rule_base"]
evaluators, tsvs = Evaluators(ev_dir), {}
options = {k: cfg["score"][k] for k in ("cp_lexicon", "cp_seed") if k in cfg["score"]}
for s in systems:
    d = res / "systems" / s
    tsvs[s] = out / f"scores/{s}.tsv"
    tsvs[s].parent.mkdir(exist_ok=True)
    score_files(evaluators, [d / f"test.final.sources.{i}.txt" for i in "01"],
                [d / f"test.final.{i}.txt" for i in "01"], [0, 1],
                references=[res / f"data/references.{i}.tsv" for i in "01"],
                meta=score_meta("yelp", s, "test", "final"), options=options,
                json_out=out / f"scores/{s}.json", tsv_out=tsvs[s])
    print("scored", s, flush=True)
ratings = data_dir / "yelp/li/human_ratings/ratings-yelp.csv"
_, joined, report = load_rated_metrics(ratings, data_dir / "yelp/li/outputs", tsvs)
json.dump(report, open(out / "match_report.json", "w"), indent=1, default=str)
correlations(joined).to_csv(out / "correlation.csv", index=False, float_format="%.6g")
EOF
  )
}
side before "$OLD"
side after "$REPO"

"$REPO/.venv/bin/python" - "$OUT" <<'EOF' | tee "$OUT/correlations.md"
import json, sys
import pandas as pd
out = sys.argv[1]
for s in ("before", "after"):
    lex = json.load(open(f"{out}/{s}/evaluators/style_lexicon.json"))
    print(f"{s}: style lexicon {len(lex['0'])} + {len(lex['1'])} words; rated rewrites matched:",
          json.load(open(f"{out}/{s}/match_report.json"))["rows_per_system"])
b, a = (pd.read_csv(f"{out}/{s}/correlation.csv") for s in ("before", "after"))
t = b.merge(a, on=["metric", "aspect", "level"], how="outer", suffixes=("_before", "_after"))
t["diff"] = t["spearman_after"] - t["spearman_before"]
t[["n_before", "n_after"]] = t[["n_before", "n_after"]].astype("Int64")
t = t[["metric", "aspect", "level", "n_before", "n_after", "spearman_before", "spearman_after", "diff"]]
for level in ("sentence", "system"):
    print(f"\n### Spearman, {level} level\n")
    print(t[t["level"] == level].drop(columns="level").to_markdown(index=False, floatfmt=".4f"))
EOF
