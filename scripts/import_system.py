"""Import an external system's test outputs (Li et al. TSV, or plain aligned lines) for one source style.

Snakemake (rule import_system, `script:`): snakemake.params (dataset, system, style, spec, dataset_config,
data_dir) -> snakemake.output.outputs / .sources. By hand:
    python scripts/import_system.py --dataset yelp --system mit --style 0 --configfile configs/yelp.yaml \
        --outputs o.txt --sources s.txt
"""

import argparse
import json
from pathlib import Path

import yaml

from tst.data.sources import resolve_data_dir
from tst.data.systems import import_system
from tst.io import write_lines


def run(dataset: str, system: str, style: int, spec: dict, dataset_config: dict, data_dir: str | None,
        outputs_path: str | Path, sources_path: str | Path) -> dict:
    sources, outputs, counts = import_system(spec, dataset_config, resolve_data_dir(data_dir), int(style),
                                             dataset, system)
    write_lines(outputs_path, outputs)
    write_lines(sources_path, sources)
    return counts


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--system", required=True)
    ap.add_argument("--style", type=int, required=True)
    ap.add_argument("--configfile", required=True)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--outputs", required=True)
    ap.add_argument("--sources", required=True)
    args = ap.parse_args(argv)
    cfg = yaml.safe_load(Path(args.configfile).read_text())["datasets"][args.dataset]
    counts = run(args.dataset, args.system, args.style, cfg["systems"][args.system], cfg, args.data_dir,
                 args.outputs, args.sources)
    print(json.dumps(counts))


if __name__ == "__main__" and "snakemake" not in globals():
    main()
elif "snakemake" in globals():
    sm = globals()["snakemake"]
    counts = run(sm.params.dataset, sm.params.system, sm.params.style, sm.params.spec, sm.params.dataset_config,
                 sm.params.data_dir, sm.output.outputs, sm.output.sources)
    if sm.log:
        Path(sm.log[0]).write_text(json.dumps(counts) + "\n")
