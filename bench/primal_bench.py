#!/usr/bin/env python3
"""snap-train's dual (SDCA, -s 7) against its primal Newton solver (-s 0) and
LIBLINEAR's primal Newton solver (liblinear-train -s 0), L2 logistic regression
with a penalised bias (-B 1) on a9a -> a9a.t at several C.

Usage: primal_bench.py --train build/snapml/cli/snap-train --data-dir DIR
                       [--threads 2] [--repeats 3] [--c 1 10 100 1e6]

Each cell is the median wall time of `repeats` runs of the whole command (reading
a9a included), and the test accuracy. snap-train stops on the relative duality
gap <= 1e-3 (-e 0.001, both solvers; --max-iter 1000 epochs / Newton iterations);
LIBLINEAR on its own rule (-e 0.01: ||g|| <= 0.01 * min(#pos, #neg) / l * ||g0||),
which is looser. docs/benchmarks/primal.md has a run.

With scikit-learn installed, a second table puts scikit-learn's peers in the same
run: LogisticRegression(solver="liblinear", intercept_scaling=1) on the same
problem (penalised bias) and the default solver="lbfgs" (free intercept, another
problem: its time only), fit() time on data already read. Its last column is the
relative objective difference of snap-train's model against the lowest of the
models on the penalised-bias problem (snap, liblinear-train, sklearn liblinear);
a negative number means snap's is the lowest.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time


def timed(command):
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{command} failed: {result.stderr}")
    return seconds, result.stdout + result.stderr


def accuracy(text):
    match = re.search(r"[Aa]ccuracy = ([0-9.]+)%", text)
    return float(match.group(1)) if match else float("nan")


def liblinear_model_weights(path):
    """(w, bias weight) of a binary LIBLINEAR-format model, w scoring label[0]."""
    with open(path) as handle:
        lines = handle.read().split("\n")
    header = {}
    start = 0
    for start, line in enumerate(lines):
        if line.strip() == "w":
            break
        key, _, value = line.partition(" ")
        header[key] = value
    values = [float(v) for v in lines[start + 1:] if v.strip()]
    first_label = float(header["label"].split()[0])
    sign = 1.0 if first_label > 0 else -1.0  # w scores label[0]
    bias = float(header.get("bias", "-1"))
    if bias > 0:
        return sign * __import__("numpy").array(values[:-1]), sign * values[-1] * bias
    return sign * __import__("numpy").array(values), 0.0


def objective(x, y, c, w, b):
    """0.5 (||w||^2 + b^2) + C sum log(1 + exp(-y (x.w + b))): -B 1's problem."""
    import numpy as np
    margins = y * (x @ w + b)
    return 0.5 * (w @ w + b * b) + c * np.logaddexp(0.0, -margins).sum()


def sklearn_rows(args, train, model, scratch):
    try:
        import numpy as np
        from sklearn.datasets import load_svmlight_file
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        return
    x, y = load_svmlight_file(train, n_features=123)
    x.indices = x.indices.astype(np.int32)  # liblinear takes 32-bit indices only
    x.indptr = x.indptr.astype(np.int32)
    y = np.where(y > 0, 1.0, -1.0)
    print()
    print("| C | snap -s 0 (whole command) | sklearn liblinear fit | sklearn lbfgs fit (free intercept) | "
          "sklearn liblinear / snap | sklearn lbfgs / snap | snap objective, relative to the lowest |")
    print("|---|---|---|---|---|---|---|")
    for c in args.c:
        snap_runs = [timed([args.train, "-q", "-s", "0", "-c", repr(c), "-B", "1", "-n", str(args.threads),
                            "-e", str(args.tol), "--model-format", "liblinear", train, model])
                     for _ in range(args.repeats)]
        snap_seconds = statistics.median(t for t, _ in snap_runs)
        objectives = {"snap": objective(x, y, c, *liblinear_model_weights(model))}
        if shutil.which("liblinear-train"):
            timed([shutil.which("liblinear-train"), "-s", "0", "-c", repr(c), "-B", "1", train,
                   os.path.join(scratch, "ll")])
            objectives["liblinear"] = objective(x, y, c, *liblinear_model_weights(os.path.join(scratch, "ll")))
        seconds = {}
        for solver in ("liblinear", "lbfgs"):
            runs = []
            for _ in range(args.repeats):
                estimator = LogisticRegression(solver=solver, C=c, max_iter=100000, intercept_scaling=1.0)
                start = time.perf_counter()
                estimator.fit(x, y)
                runs.append(time.perf_counter() - start)
            seconds[solver] = statistics.median(runs)
            if solver == "liblinear":
                objectives["sklearn"] = objective(x, y, c, estimator.coef_[0], estimator.intercept_[0])
        lowest = min(objectives.values())
        print(f"| {c:g} | {snap_seconds:.2f} s | {seconds['liblinear']:.2f} s | {seconds['lbfgs']:.2f} s | "
              f"{seconds['liblinear'] / snap_seconds:.1f} | {seconds['lbfgs'] / snap_seconds:.1f} | "
              f"{(objectives['snap'] - lowest) / lowest:.1e} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--c", type=float, nargs="+", default=[1, 10, 100, 1e6])
    parser.add_argument("--tol", type=float, default=0.001, help="snap-train's -e in the scikit-learn table")
    args = parser.parse_args()
    train = os.path.join(args.data_dir, "a9a")
    test = os.path.join(args.data_dir, "a9a.t")
    liblinear_train = shutil.which("liblinear-train")
    liblinear_predict = shutil.which("liblinear-predict")
    scratch = tempfile.mkdtemp()
    model = os.path.join(scratch, "m")
    print("| C | snap -s 7 (dual) | snap -s 0 (primal) | liblinear -s 0 | dual / primal | primal / liblinear |")
    print("|---|---|---|---|---|---|")
    for c in args.c:
        rows = {}
        for name, solver in (("dual", "7"), ("primal", "0")):
            runs = [timed([args.train, "-s", solver, "-c", repr(c), "-B", "1", "-n", str(args.threads),
                           "-e", "0.001", "--test", test, train, model]) for _ in range(args.repeats)]
            epochs = re.search(r"(\d+) epochs", runs[-1][1])
            rows[name] = (statistics.median(t for t, _ in runs), accuracy(runs[-1][1]),
                          epochs.group(1) if epochs else "?")
        if liblinear_train:
            runs = [timed([liblinear_train, "-s", "0", "-c", repr(c), "-B", "1", train, model])
                    for _ in range(args.repeats)]
            _, predicted = timed([liblinear_predict, test, model, os.path.join(scratch, "out")])
            rows["liblinear"] = (statistics.median(t for t, _ in runs), accuracy(predicted),
                                 str(len(re.findall(r"^iter", runs[-1][1], re.M))))
        else:
            rows["liblinear"] = (float("nan"), float("nan"), "-")

        def cell(name):
            seconds, acc, iterations = rows[name]
            return f"{seconds:.2f} s, {iterations} it, {acc:.2f} %"

        print(f"| {c:g} | {cell('dual')} | {cell('primal')} | {cell('liblinear')} | "
              f"{rows['dual'][0] / rows['primal'][0]:.1f} | {rows['primal'][0] / rows['liblinear'][0]:.1f} |",
              flush=True)
    sklearn_rows(args, train, model, scratch)
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
