"""The gaming battery on a finished run, scored with the default GM against its evaluators and calibration:

1. the generated forms (tst.battery: edit of the source x join x target-style material, several hundred of them),
   each read on a seeded sample of the test sources beside an honest system on the same sample and put in place
   of the honest system's failures: the worst 10 forms are printed, then the worst rescored on the whole test
   set through `tst score`;
2. the named attacks (tst.attacks: tails, copies, shuffles, fixed sentences, ...) through `tst score`.

    python bench/gaming_battery.py --results . --dataset demo --honest reference
    python bench/gaming_battery.py --results . --dataset yelp --honest human --per-form 60
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

from tst import battery
from tst.attacks import ATTACKS, run_battery

KEYS = ("gm", "joint", "style", "content", "acceptability")


def whole_test_set(results, dataset, honest, form_name, corpus, seed, workdir) -> dict:
    """The form's outputs for every test source, scored by `tst score` (the route a user would take)."""
    import subprocess
    import sys

    from tst import layout
    from tst.io import read_lines, write_lines

    root = Path(results)
    edit, join, material = form_name.split("+")
    form = battery.Form(edit, join, material)
    files = [str(root / layout.sources(dataset, honest, "test", "final", s)) for s in (0, 1)]
    paths = []
    for s in (0, 1):
        made = [battery.make(form, x, s, corpus, seed, i) for i, x in enumerate(read_lines(files[s]))]
        paths.append(str(Path(workdir) / f"{form_name}.{s}.txt"))
        write_lines(paths[-1], made)
    cmd = [
        str(Path(sys.executable).with_name("tst")),
        "score",
        "--dataset-dir",
        str(root / layout.root(dataset)),
    ]
    cmd += ["--sources", *files, "--outputs", *paths, "--no-ci", "--precision", "fp32"]
    cmd += ["--metrics", *KEYS, "sbert_all_minilm_l6_v2"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    metrics = json.loads(done.stdout)["metrics"]
    return {k: (metrics.get(k) or {}).get("score") for k in KEYS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=".", help="the run's working directory (it holds results/<dataset>)")
    ap.add_argument("--dataset", default="demo")
    ap.add_argument(
        "--honest", default="reference", help="the system the forms and attacks are compared with"
    )
    ap.add_argument("--per-form", type=int, default=40, help="sources each form is read on (and failures)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rescore", type=int, default=3, help="the worst forms rescored on the whole test set")
    ap.add_argument("--attacks", nargs="*", default=list(ATTACKS), help="the named attacks (none: skip them)")
    ap.add_argument("--json", help="also write every row here")
    a = ap.parse_args()
    t0 = time.time()
    scorer, corpus, joint, t_j = battery.from_run(a.results, a.dataset, a.honest)
    rows = battery.run(scorer, corpus, joint, t_j, per_form=a.per_form, seed=a.seed)
    print(
        f"{len(rows)} forms, {a.per_form} sources each and {a.per_form} of {a.honest}'s failures, t_J = {t_j:.4f}, "
        f"{time.time() - t0:.0f} s; {a.honest} on the same sample: GM {rows[0]['honest_gm']:.2f}\n"
    )
    # content and fluency are read only where the style gain is above 0 (tst.battery.Scorer.terms): their means
    # are over those outputs
    print(
        "| form (edit+join+material) | GM | J | style | sampled outputs with a style gain | their content | their "
        "fluency | failures raised |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows[:10]:
        content, fluency = ("" if r[k] is None else f"{r[k]:.3f}" for k in ("content", "fluency"))
        print(
            f"| {r['form']} | {r['gm']:.2f} | {r['joint']:.4f} | {r['style']:.3f} | {r['n_gained']} "
            f"| {content} | {fluency} | {r['failures_raised']} |"
        )
    raised = [r for r in rows if r["failures_raised"]]
    moved = [r for r in rows if r["failures_raised_style_moved"]]
    print(f"\nforms that raise {a.honest} in place of its failures: {len(raised)} of {len(rows)}")
    print(
        f"forms whose edit took out the source's style (read apart, outside the class) and that raise it there: "
        f"{len(moved)} ({sum(r['failures_raised_style_moved'] for r in moved)} outputs)"
    )
    out = {"forms": rows, "t_j": t_j, "whole": {}, "attacks": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows[: a.rescore]:
            got = whole_test_set(a.results, a.dataset, a.honest, r["form"], corpus, a.seed, tmp)
            out["whole"][r["form"]] = got
            print(
                f"whole test set, {r['form']}: "
                + ", ".join(f"{k} {got[k]:.4f}" for k in KEYS if got[k] is not None)
            )
        if a.attacks:
            out["attacks"] = run_battery(a.results, a.dataset, a.honest, tmp, attacks=a.attacks)
    if a.attacks:
        print("\n| attack | " + " | ".join(KEYS) + " |\n|---|" + "---:|" * len(KEYS))
        for name, row in out["attacks"].items():
            cells = [
                "" if row[k] is None else f"{row[k]:.4f}" if k != "gm" else f"{row[k]:.2f}" for k in KEYS
            ]
            print(f"| {a.honest if name == 'honest' else name} | " + " | ".join(cells) + " |")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
