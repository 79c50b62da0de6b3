"""What keying a kept GPU session's rows costs (docs/benchmarks/python.md, "Kept
GPU sessions"): the one pass over the CSR arrays that every GPU fit with a kept
session makes (python/src/session.h, snapml/impl/rows_identity.h), on 1, 2, ...
threads, for generated rows of the given size.

    python3 bench/session_rows_key.py [--rows 1000000] [--per-row 20] [--threads 1,2]
"""
import argparse
import time

import numpy as np

from snap_ml import _core


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--per-row", type=int, default=20)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n, per, width = args.rows, args.per_row, 1 << 20
    indptr = np.arange(0, n * per + 1, per, dtype=np.int64)
    indices = np.sort(rng.integers(0, width, (n, per)).astype(np.int32), axis=1).ravel()
    values = rng.random(n * per, dtype=np.float32)
    data = _core.CsrData(indptr, indices, values, width)
    megabytes = (indptr.nbytes + indices.nbytes + values.nbytes) / 1e6
    print(f"{n} rows, {n * per} non-zeros: {megabytes:.0f} MB of CSR arrays")
    print("| threads | best of %d (ms) | GB/s |" % args.repeats)
    print("|---|---|---|")
    for threads in (int(t) for t in args.threads.split(",")):
        session = _core.Session(False, [])
        best = float("inf")
        for _ in range(args.repeats):
            started = time.perf_counter()
            session.rows_identity(data, threads)
            best = min(best, time.perf_counter() - started)
        print(f"| {threads} | {best * 1e3:.1f} | {megabytes / 1e3 / best:.2f} |")


if __name__ == "__main__":
    main()
