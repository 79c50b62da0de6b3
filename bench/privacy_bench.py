"""Accuracy against the privacy budget of DP-SGD (snap_ml.ibm's privacy=True) on a9a.

    PYTHONPATH=<site with snap_ml> python3 bench/privacy_bench.py [--data-dir DIR] [--epochs 5] [--seeds 3] [--rows N]

Prints a markdown table (docs/benchmarks/privacy.md): for each target epsilon the
noise multiplier the accountant chose, the epsilon spent at delta = 0.01 and the
a9a.t accuracy (mean and range over the seeds), with the exact fit's accuracy.
"""

import argparse
import os
import pathlib
import platform
import time

import numpy as np

import snap_ml.ibm as snapml
from snap_ml.datasets import load_svmlight_file

REPO = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("SNAPML_DATA_DIR", REPO.parent / "shared" / "datasets"))
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=None, help="train on a9a's first ROWS rows only")
    args = parser.parse_args()
    data = pathlib.Path(args.data_dir)
    X, y = load_svmlight_file(str(data / "a9a"), n_features=123)
    if args.rows:
        X, y = X[:args.rows], y[:args.rows]
    X_test, y_test = load_svmlight_file(str(data / "a9a.t"), n_features=123)
    common = dict(fit_intercept=True, max_iter=args.epochs, batch_size=100, eta=0.3, grad_clip=1.0)
    exact = snapml.LogisticRegression(fit_intercept=True).fit(X, y)
    print(f"- {time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; a9a ({X.shape[0]:,} rows) -> a9a.t; {args.epochs} epochs, batch 100, eta 0.3, "
          f"grad_clip 1, fit_intercept=True, delta 0.01; {args.seeds} seeds\n")
    print("| target epsilon | noise multiplier | epsilon spent | a9a.t accuracy (mean) | min - max | fit time (s) |")
    print("|---|---|---|---|---|---|")
    for epsilon in (0.1, 0.3, 1.0, 3.0, 10.0, 100.0):
        scores, times = [], []
        for seed in range(args.seeds):
            start = time.perf_counter()
            model = snapml.LogisticRegression(privacy=True, privacy_epsilon=epsilon, random_state=seed,
                                              **common).fit(X, y)
            times.append(time.perf_counter() - start)
            scores.append(np.mean(model.predict(X_test) == y_test))
        print(f"| {epsilon:g} | {model.noise_multiplier_:.3f} | {model.privacy_epsilon_:.4g} | "
              f"{100 * np.mean(scores):.2f} % | {100 * min(scores):.2f} - {100 * max(scores):.2f} % | "
              f"{np.median(times):.2f} |")
    print(f"| exact (no privacy) | - | - | {100 * np.mean(exact.predict(X_test) == y_test):.2f} % | - | - |")


if __name__ == "__main__":
    main()
