"""Mir et al. (2019) style lexicon, and (Pang 2019) the corpus-specific content words to mask.

python scripts/build_style_lexicon.py --train t.0.txt t.1.txt --out style_lexicon.json \
    [--content-out content_words.json --content-config '{"min_count": 20, "ratio": 5}']
"""

from __future__ import annotations

import argparse
import json

from tst.evaluators.content_mask import select_content_words
from tst.evaluators.style_lexicon import build_style_lexicon
from tst.io import read_sentences, write_json


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", nargs=2, required=True, help="style-0 and style-1 train files")
    ap.add_argument("--config", default="{}", help="JSON: C, sd, min_count, seed")
    ap.add_argument("--out", required=True)
    ap.add_argument("--content-out", default=None)
    ap.add_argument("--content-config", default="{}", help="JSON: min_count, ratio, use_vader, max_words")
    args = ap.parse_args(argv)
    cfg = json.loads(args.config)
    s0, s1 = read_sentences(args.train[0]), read_sentences(args.train[1])
    lex = build_style_lexicon(s0, s1, **{k: cfg[k] for k in ("C", "sd", "min_count", "seed") if k in cfg})
    write_json(args.out, lex)
    print(json.dumps({"style0_words": len(lex["0"]), "style1_words": len(lex["1"])}))
    if args.content_out:
        ccfg = json.loads(args.content_config)
        keys = ("min_count", "ratio", "use_vader", "max_words")
        words = select_content_words(s0, s1, lex["0"] + lex["1"], **{k: ccfg[k] for k in keys if k in ccfg})
        write_json(args.content_out, {"words": words, **ccfg})
        print(json.dumps({"content_words": len(words)}))


if __name__ == "__main__":
    main()
