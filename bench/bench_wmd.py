"""WMD per sentence pair: POT's public ot.emd2 (what tst.metrics.wmd calls) against its network simplex called
directly (ot.lp.emd_wrap.emd_c, without emd2's backend dispatch, marginal check and dual centring).

    python bench/bench_wmd.py [--pairs 2000] [--dim 50] [--repeats 3]

Seeded bag-of-words pairs of 4-15 words a side (counts 1-2, a third of the words shared, 50-d unit vectors, as
GloVe 6B-50d on a review sentence); prints the best of --repeats per route in ms per pair, the ratio, and the
largest difference between the two routes' distances.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tst.metrics.wmd import _ot


def problems(n: int, dim: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k, m = rng.integers(4, 16, 2)
        A, B = rng.normal(size=(k, dim)), rng.normal(size=(m, dim))
        shared = min(k, m) // 3
        B[:shared] = A[:shared]
        A /= np.linalg.norm(A, axis=1, keepdims=True)
        B /= np.linalg.norm(B, axis=1, keepdims=True)
        a, b = rng.integers(1, 3, k).astype(float), rng.integers(1, 3, m).astype(float)
        M = np.ascontiguousarray(np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)))
        out.append((a / a.sum(), b / b.sum(), M))
    return out


def public(a, b, M) -> float:
    return float(_ot().emd2(a, b, M))


def direct(a, b, M) -> float:
    from ot.lp.emd_wrap import check_result, emd_c

    _, cost, _, _, code = emd_c(a, b * a.sum() / b.sum(), M, 100_000, 1, None, None)
    check_result(code)
    return float(cost)


def best_ms_per_pair(route, probs, repeats: int) -> tuple[float, list[float]]:
    times, values = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        values = [route(*p) for p in probs]
        times.append(time.perf_counter() - t)
    return 1000 * min(times) / len(probs), values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--dim", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    probs = problems(args.pairs, args.dim)
    _ot()  # the import is not timed
    ms_public, v_public = best_ms_per_pair(public, probs, args.repeats)
    ms_direct, v_direct = best_ms_per_pair(direct, probs, args.repeats)
    diff = max(abs(x - y) for x, y in zip(v_public, v_direct))
    print(f"{args.pairs} pairs, {args.dim}-d unit vectors, best of {args.repeats}")
    print(f"ot.emd2 (public):         {ms_public:.4f} ms/pair")
    print(f"emd_c (called directly):  {ms_direct:.4f} ms/pair")
    print(f"ratio public / direct:    {ms_public / ms_direct:.2f}")
    print(f"largest |difference|:     {diff:.3g}")


if __name__ == "__main__":
    main()
