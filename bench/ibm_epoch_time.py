"""IBM snapml's seconds per SDCA epoch on a .snap file, for bench/epoch_time.py.

    python ibm_epoch_time.py DATA C THREADS EPOCHS_LOW EPOCHS_HIGH

Fits IBM snapml's LogisticRegression (dual=True: its SDCA, the Criteo benchmark's
settings, bench/criteo/peer_worker.py) for EPOCHS_LOW and for EPOCHS_HIGH epochs
on the data already in memory (after a 1-epoch fit that pays the library's
one-off start), with a tolerance no fit reaches, and prints
(t_high - t_low) / (EPOCHS_HIGH - EPOCHS_LOW): the time of an epoch with the
one-off work of a fit (copying the data in, the first pass) taken out, over
the same epochs epoch_time.py times snap-train.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "criteo"))
from snapfile import read_snap  # noqa: E402


def fit_seconds(X, y, C, threads, epochs):
    from snapml import LogisticRegression
    model = LogisticRegression(regularizer=1.0 / C, fit_intercept=True, intercept_scaling=1.0, dual=True,
                               max_iter=epochs, tol=1e-12, n_jobs=threads)
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def main():
    path, C, threads, low, high = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    X, y = read_snap(path)
    fit_seconds(X, y, C, threads, 1)  # the first fit also pays the library's one-off start
    t_low = fit_seconds(X, y, C, threads, low)
    t_high = fit_seconds(X, y, C, threads, high)
    print(f"{(t_high - t_low) / (high - low):.6f}")


if __name__ == "__main__":
    main()
