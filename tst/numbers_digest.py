"""The demo's default numbers, as one digest per version: a version moves whenever they do.

The numbers: every leaderboard row of the tiny demo run (config.yaml with configs/tiny.yaml over it: every rule of
the demo in minutes; the test suite's `finished_run`), its default GM and the GM's three factors
(tst.metrics.gm.GM_FACTORS), rounded to DECIMALS, and the GM's threshold t_J. The digest: the sha256 of their
canonical JSON (sorted keys, no spaces). tests/data/numbers_digest.json maps each version to its digest;
tests/test_numbers_digest.py fails when the tiny run's numbers are not the current version's.

    python -m tst.numbers_digest                 # run the tiny config in a temporary folder, compare
    python -m tst.numbers_digest --write         # ... and record the digest of the current version
    python -m tst.numbers_digest --write --run DIR   # from a finished tiny run (DIR holds results/demo)

--write refuses to change the digest a version already has (released numbers stay what they were): bump the
version (tst/__init__.py, CITATION.cff, a CHANGELOG.md section) first, or pass --replace while the version is
not released yet.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tst import layout
from tst.codehash import PACKAGE_DIR
from tst.metrics.gm import GM_FACTORS

REPO = PACKAGE_DIR.parent
DIGEST_FILE = REPO / "tests" / "data" / "numbers_digest.json"
TINY = ("config.yaml", "configs/tiny.yaml")  # the tiny run: the demo's config with the tiny overlay
DATASET = "demo"
KEYS = ("gm", *GM_FACTORS)  # the default numbers: the default GM and its factors
DECIMALS = 3  # GM on 0-100 to 0.001, its factors on 0-1 to 0.001


def _rounded(cell: str) -> float | None:
    return None if cell == "" else round(float(cell), DECIMALS)


def numbers(dataset_dir: Path) -> dict:
    """The default numbers of a finished run's dataset folder (results/<dataset>): t_J (validity/gm_thresholds.json)
    and, per leaderboard row (tables/leaderboard.csv: `system@checkpoint`), KEYS, each rounded to DECIMALS (None
    where the board has no value)."""
    dataset_dir = Path(dataset_dir)
    t_j = json.loads((dataset_dir / layout.CALIBRATION_FILE).read_text(encoding="utf-8"))["t"][0]
    with open(dataset_dir / layout.TABLES / "leaderboard.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    systems = {f"{r['system']}@{r['checkpoint']}": {k: _rounded(r[k]) for k in KEYS} for r in rows}
    return {"t_J": round(float(t_j), DECIMALS), "systems": systems}


def digest(values: dict) -> str:
    """sha256 (hex) of the canonical JSON of `values` (sorted keys, separators without spaces)."""
    text = json.dumps(values, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def recorded(path: Path = DIGEST_FILE) -> dict[str, str]:
    """version -> digest, as checked in ({} when the file does not exist)."""
    return json.loads(Path(path).read_text(encoding="utf-8")) if Path(path).is_file() else {}


def record(version: str, value: str, path: Path = DIGEST_FILE, replace: bool = False) -> dict[str, str]:
    """Write `version`'s digest into the file (versions sorted by their numbers) and return the table; ValueError
    when the version has another digest already and not `replace`."""
    table = recorded(path)
    if table.get(version) not in (None, value) and not replace:
        raise ValueError(
            f"the default numbers of {version} are recorded as {table[version][:12]}..., these are {value[:12]}...: "
            "numbers that move need a new version (tst/__init__.py, CITATION.cff, CHANGELOG.md); while "
            f"{version} is not released, --replace records them under it"
        )
    table[version] = value
    order = sorted(table, key=lambda v: tuple(int(p) if p.isdigit() else -1 for p in v.split(".")))
    Path(path).write_text(json.dumps({v: table[v] for v in order}, indent=2) + "\n", encoding="utf-8")
    return table


def tiny_config() -> dict:
    """config.yaml with configs/tiny.yaml over it, merged as Snakemake merges --configfile overlays."""
    import yaml

    from tst.config_files import merge_configs

    return merge_configs([yaml.safe_load((REPO / name).read_text(encoding="utf-8")) for name in TINY])


def run_tiny(workdir: Path, cores: str = "all") -> Path:
    """Run the tiny config in `workdir` (Snakemake, this clone's Snakefile) and return its results/demo folder."""
    import yaml

    snakemake = Path(sys.executable).with_name("snakemake")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "config.yaml").write_text(yaml.safe_dump(tiny_config()), encoding="utf-8")
    subprocess.run(
        [str(snakemake), "-s", str(REPO / "Snakefile"), "--cores", cores, "--quiet"],
        cwd=workdir,
        check=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        },
    )
    return workdir / layout.root(DATASET)


def main(argv=None) -> int:
    from tst import signature

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--run", type=Path, help="a finished tiny run (the working folder it ran in); default: run one"
    )
    ap.add_argument("--write", action="store_true", help="record the digest of the current version")
    ap.add_argument("--replace", action="store_true", help="with --write: replace the version's digest")
    ap.add_argument("--cores", default="all", help="Snakemake --cores of the tiny run (default %(default)s)")
    args = ap.parse_args(argv)
    version = signature.version()
    if args.run:
        values = numbers(args.run / layout.root(DATASET))
    else:
        with tempfile.TemporaryDirectory(prefix="tst-tiny-") as tmp:
            values = numbers(run_tiny(Path(tmp), args.cores))
    value = digest(values)
    print(json.dumps(values, indent=2, sort_keys=True))
    print(f"tst {version}: the demo's default numbers digest {value}")
    if args.write:
        try:
            record(version, value, replace=args.replace)
        except ValueError as e:
            print(f"tst.numbers_digest: error: {e}", file=sys.stderr)
            return 1
        print(f"recorded in {DIGEST_FILE.relative_to(REPO)}")
        return 0
    want = recorded().get(version)
    if want != value:
        print(
            f"tst.numbers_digest: {DIGEST_FILE.relative_to(REPO)} has {want} for {version}: the numbers moved",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
