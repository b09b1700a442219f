"""Build one embedding file: GloVe restricted to the corpus vocabulary, or word2vec trained on the train
corpus (plain, or with style-lexicon words masked as in Mir et al. 2019).

python scripts/build_embeddings.py --kind glove --train t.0.txt t.1.txt --out glove.kv [--source URL|FILE]
python scripts/build_embeddings.py --kind word2vec_masked --lexicon style_lexicon.json --train ... --out w.kv
"""

from __future__ import annotations

import argparse
import json

from tst.evaluators.embeddings import load_glove, train_word2vec
from tst.evaluators.style_lexicon import mask_style_words
from tst.io import read_json, read_sentences


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kind", choices=["glove", "word2vec", "word2vec_masked"], required=True)
    ap.add_argument("--train", nargs="+", required=True, help="train files (both styles)")
    ap.add_argument("--extra", nargs="*", default=[], help="more text whose words GloVe keeps (dev/test)")
    ap.add_argument("--lexicon", default=None, help="style_lexicon.json (word2vec_masked)")
    ap.add_argument("--config", default="{}", help="JSON: glove: source, member; word2vec: dim, window, "
                    "min_count, epochs, sg, seed")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    cfg = json.loads(args.config)
    sents = [s for p in args.train for s in read_sentences(p)]
    if args.kind == "glove":
        words = {t for p in args.train + args.extra for s in read_sentences(p) for t in s}
        emb = load_glove(cfg.get("source"), vocab=words, member=cfg.get("member"),
                         cache_dir=cfg.get("cache_dir", "resources/glove"))
    else:
        if args.kind == "word2vec_masked":
            lexicon = read_json(args.lexicon)
            sents = [mask_style_words(s, lexicon) for s in sents]
        keys = ("dim", "window", "min_count", "epochs", "sg", "seed")
        emb = train_word2vec(sents, **{k: cfg[k] for k in keys if k in cfg})
    emb.save(args.out)
    print(json.dumps({"kind": args.kind, "words": len(emb), "dim": emb.dim}))


if __name__ == "__main__":
    main()
