"""Attribute-independent / -dependent word lists (Yu et al. 2021, §5.1) from a parse.jsonl file.

python scripts/attributes.py --parse test.0.parse.jsonl --options '{"nouns_only": false}' \
    --out test.0.attributes.jsonl

Writes one JSON object per line, aligned with the parsed text:
{"independent": [stems], "dependent": [words], "independent_words": [words]}.
"""

from __future__ import annotations

import argparse
import json

from tst.io import write_jsonl
from tst.nlp.attributes import AttributeOptions, extract, load_parses


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--parse", required=True, help="parse.jsonl written by scripts/parse.py")
    ap.add_argument("--options", default="{}", help="JSON: the config's attributes block")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    opts = AttributeOptions.from_config(json.loads(args.options))
    records = [extract(doc, opts) for doc in load_parses(args.parse)]
    write_jsonl(args.out, records)
    n_ind = [len(r["independent"]) for r in records]
    n_dep = [len(r["dependent"]) for r in records]
    n = max(len(records), 1)
    print(json.dumps({"sentences": len(records), "mean_independent": sum(n_ind) / n,
                      "mean_dependent": sum(n_dep) / n, "empty_independent": n_ind.count(0),
                      "empty_dependent": n_dep.count(0)}))


if __name__ == "__main__":
    main()
