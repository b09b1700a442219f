"""Time WMD (its three variants) and the four sentence BLEUs on every checkpoint's outputs of one of our models in a
finished run: what that model's score job computes for them (issue 28, stop 45: docs/evaluator_speed.md).

    cd <a finished run's folder>; python bench/score_checkpoints.py --dataset demo --system M2.seed1 [--repeats 2]

Prints the seconds of each group and a sha256 of every per-sentence value, so two versions of the code compare on
the same outputs: run it again with PYTHONPATH=<a worktree of the code before>.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import time

from tst import layout, names
from tst.evaluators.style_lexicon import style_words
from tst.io import read_lines
from tst.metrics.bleu import ref_bleu, self_bleu
from tst.metrics.wmd import wmd
from tst.score import Evaluators


def pairs(dataset: str, system: str):
    """Sources and outputs of every (split, checkpoint, style) of one of our systems (tst.layout's paths, in file-name
    order), and which of them are test runs."""
    variant, seed = names.parse_system(system)
    sources, outputs, test = [], [], []
    for split in ("dev", "test"):
        for style in (0, 1):
            for path in sorted(glob.glob(layout.transfer(dataset, variant, seed, split, "*", style))):
                out = read_lines(path)
                sources += read_lines(layout.sources(dataset, system, split, "*", style))
                outputs += out
                test += [split == "test"] * len(out)
    return sources, outputs, test


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="demo")
    ap.add_argument("--system", default="M2.seed1", help="one of our models: <variant>.seed<N>")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    sources, outputs, test = pairs(args.dataset, args.system)
    ev = Evaluators(layout.evaluators(args.dataset))
    words = style_words(ev.load("style_lexicon.json"))
    kv, kv_masked = ev.load("word2vec.kv"), ev.load("word2vec_masked.kv")
    t_src = [s for s, t in zip(sources, test) if t]
    t_out = [o for o, t in zip(outputs, test) if t]
    print(f"{len(outputs)} outputs ({len(set(outputs))} distinct), {len(t_out)} of them on test")
    groups = {
        "wmd x3": lambda: [
            wmd(sources, outputs, kv_masked, words, "masked"),
            wmd(sources, outputs, kv, words, "removed"),
            wmd(sources, outputs, kv, words, "unmasked"),
        ],
        "sentence BLEU x4": lambda: [
            self_bleu(sources, outputs, "sentence"),
            self_bleu(sources, outputs, "st"),
            ref_bleu(t_out, [[s] for s in t_src], "sentence"),
            ref_bleu(t_out, [[s] for s in t_src], "st"),
        ],
    }
    for name, compute in groups.items():
        for _ in range(args.repeats):
            start = time.perf_counter()
            results = compute()
            seconds = time.perf_counter() - start
            values = json.dumps([(r.score, r.per_sentence) for r in results]).encode()
            print(f"{name}: {seconds:.2f} s, values sha256 {hashlib.sha256(values).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
