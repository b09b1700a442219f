"""The gaming battery (tst.attacks) on a finished run: each attack on an honest system's test outputs, scored by
`tst score` with the default GM, printed as a table beside the honest system's own scores:

    python bench/gaming_battery.py --results . --dataset demo --honest reference
    python bench/gaming_battery.py --results . --dataset yelp --honest style_transformer_cond
"""

import argparse
import json
import tempfile

from tst.attacks import ATTACKS, run_battery


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=".", help="the run's working directory (it holds results/<dataset>)")
    ap.add_argument("--dataset", default="demo")
    ap.add_argument("--honest", default="reference", help="the system whose outputs the attacks start from")
    ap.add_argument("--attacks", nargs="+", default=list(ATTACKS))
    ap.add_argument("--json", help="also write the table here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        got = run_battery(a.results, a.dataset, a.honest, tmp, attacks=a.attacks)
    keys = ("gm", "joint", "style", "content", "acceptability")
    print("| attack | " + " | ".join(keys) + " |\n|---|" + "---:|" * len(keys))
    for name, row in got.items():
        cells = ["" if row[k] is None else f"{row[k]:.4f}" if k != "gm" else f"{row[k]:.2f}" for k in keys]
        print(f"| {a.honest if name == 'honest' else name} | " + " | ".join(cells) + " |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(got, f, indent=1)


if __name__ == "__main__":
    main()
