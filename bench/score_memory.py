"""Peak memory of `tst score` on 1,000 normal lines and on the same lines with one 1 MB line (goal:
the long line costs at most 1.5x the normal peak).

    python bench/score_memory.py --dataset-dir results/demo [--system M0.seed1] [--work /tmp/score_memory]

The input: the first 500 training sentences of each style as sources, the first 500 of the other style as
outputs (a system that answers with an unrelated target-style sentence), the dataset's references. Cases, each
one `tst score` process (`python -m tst score`, every metric whose evaluator exists, the default --max-words),
its peak RSS read by os.wait4:
  normal     the 1,000 lines as they are;
  1mb_words  output line 1 replaced by 1 MB of words (the dataset's vocabulary cycled, one space apart);
  1mb_token  output line 1 replaced by 1 MB without a space (one token, which the word limit does not cut);
  uncut      (only when asked: --cases ... uncut) the 1mb_words input with --max-words 10^9: the token-capped
             batches alone, under an address-space limit of --cap-gb (RLIMIT_AS) so it cannot take the machine
             down (before the cap and the limit this input took 23 GB on Yelp and was killed).
Prints a table and writes it as JSON (--out).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
N_PER_STYLE = 500
LONG_BYTES = 1_000_000


def long_words(vocab: list[str], n_bytes: int = LONG_BYTES) -> str:
    """n_bytes of the vocabulary's words cycled, one space apart (cut to exactly n_bytes, ASCII words)."""
    words = [w for w in vocab if w.isascii() and not w.startswith("<")] or ["word"]
    out, size, i = [], 0, 0
    while size < n_bytes:
        w = words[i % len(words)]
        out.append(w)
        size += len(w) + 1
        i += 1
    return " ".join(out)[:n_bytes].rstrip()


def make_inputs(dataset_dir: Path, work: Path) -> dict[str, dict]:
    """case -> {"sources": [...], "outputs": [...]} files under `work`."""
    data = dataset_dir / "data"
    train = [(data / f"train.{s}.txt").read_text(encoding="utf-8").splitlines()[:N_PER_STYLE] for s in (0, 1)]
    vocab = (data / "vocab.txt").read_text(encoding="utf-8").split()
    work.mkdir(parents=True, exist_ok=True)
    sources = []
    for s in (0, 1):
        path = work / f"sources.{s}.txt"
        path.write_text("\n".join(train[s]) + "\n", encoding="utf-8")
        sources.append(str(path))
    longs = {"normal": None, "1mb_words": long_words(vocab), "1mb_token": "x" * LONG_BYTES}
    longs["uncut"] = longs["1mb_words"]
    cases = {}
    for case, long in longs.items():
        outputs = []
        for s in (0, 1):
            lines = list(train[1 - s])
            if long is not None and s == 0:
                lines[0] = long
            path = work / f"{case}.out.{s}.txt"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            outputs.append(str(path))
        cases[case] = {"sources": sources, "outputs": outputs}
    return cases


def peak_rss(cmd: list[str], env: dict, cap_bytes: int | None = None) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit code) of one child process (address space capped when given)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if cap_bytes:  # set while the interpreter starts, long before scoring allocates anything
        resource.prlimit(proc.pid, resource.RLIMIT_AS, (cap_bytes, cap_bytes))
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode == 0:
        json.loads(out)  # the score JSON
    return usage.ru_maxrss / 1024, time.perf_counter() - t0, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset-dir", default="results/demo")
    ap.add_argument("--system", default="M0.seed1", help="names the naturalness classifiers scored")
    ap.add_argument("--work", default="/tmp/score_memory")
    ap.add_argument("--cases", nargs="+", default=["normal", "1mb_words", "1mb_token"])
    ap.add_argument("--cap-gb", type=float, default=8.0, help="address-space limit of the uncut case")
    ap.add_argument("--out", help="also write the results as JSON here")
    args = ap.parse_args()
    dataset_dir, work = Path(args.dataset_dir), Path(args.work)
    cases = make_inputs(dataset_dir, work)
    refs = [str(dataset_dir / "data" / f"references.{s}.tsv") for s in (0, 1)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    rows = {}
    for case in args.cases:
        json_out = work / f"{case}.json"
        cmd = [
            sys.executable,
            "-m",
            "tst",
            "score",
            "--dataset-dir",
            str(dataset_dir),
            "--system",
            args.system,
        ]
        cmd += ["--sources", *cases[case]["sources"], "--outputs", *cases[case]["outputs"]]
        cmd += ["--references", *[r for r in refs if Path(r).is_file()], "--json", str(json_out)]
        cap = None
        if case == "uncut":
            cmd += ["--max-words", str(10**9)]
            cap = int(args.cap_gb * 2**30)
        mb, seconds, code = peak_rss(cmd, env, cap)
        obj = json.loads(json_out.read_text()) if code == 0 else {}
        rows[case] = {
            "peak_rss_mb": round(mb, 1),
            "seconds": round(seconds, 1),
            "exit": code,
            "n_truncated": obj.get("n_truncated"),
            "max_words": obj.get("max_words"),
            "metrics": len(obj.get("metrics", {})),
            "skipped": sorted(obj.get("skipped", {})),
        }
        print(f"{case:10s} peak RSS {mb:8.1f} MB  {seconds:6.1f} s  exit {code}  {rows[case]}", flush=True)
    if "normal" in rows:
        for case, row in rows.items():
            row["ratio_to_normal"] = round(row["peak_rss_mb"] / rows["normal"]["peak_rss_mb"], 3)
            print(f"{case:10s} {row['ratio_to_normal']:.3f} x normal")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
