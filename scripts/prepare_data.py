"""Prepare one dataset into results/{dataset}/data/ (tst.data.prepare.prepare_dataset).

Snakemake (rule prepare_data, `script:`): reads snakemake.params (dataset, dataset_config, data_dir, nlp,
out_dir) and writes snakemake.output. By hand:
    python scripts/prepare_data.py --dataset yelp --configfile configs/yelp.yaml --out results/yelp/data
"""

import argparse
import json
import logging
import sys
from pathlib import Path

import yaml

from tst.data.prepare import prepare_dataset

log = logging.getLogger("prepare_data")


def run(dataset: str, dataset_config: dict, data_dir: str | None, nlp: dict, out_dir: str | Path) -> dict:
    report = prepare_dataset(dataset_config, Path(data_dir) if data_dir else None, Path(out_dir), nlp, dataset)
    log.info("prepared %s: %s", dataset, json.dumps(report["splits"]))
    return report


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--configfile", nargs="+", default=["config.yaml"], help="later files override earlier ones")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    config: dict = {}
    for path in args.configfile:
        overlay = yaml.safe_load(Path(path).read_text()) or {}
        config = {**config, **overlay, "datasets": {**config.get("datasets", {}), **overlay.get("datasets", {})}}
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    run(args.dataset, config["datasets"][args.dataset], args.data_dir or config.get("data_dir"),
        config.get("nlp", {}), args.out)


if __name__ == "__main__" and "snakemake" not in globals():
    main()
elif "snakemake" in globals():
    sm = globals()["snakemake"]
    logging.basicConfig(level=logging.INFO, filename=sm.log[0] if sm.log else None, force=True)
    run(sm.params.dataset, sm.params.dataset_config, sm.params.data_dir, sm.params.nlp, sm.params.out_dir)
