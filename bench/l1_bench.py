#!/usr/bin/env python3
"""L1-regularised logistic regression on a9a at C = 1 (-B 1, the bias in the
penalty): snap-train's newGLMNET (-s 6, the default), its plain coordinate
descent (-s 6 --solver cd) and LIBLINEAR's newGLMNET (liblinear-train -s 6), in
one run.

Usage: l1_bench.py --train build/snapml/cli/snap-train --data-dir DIR
                   [--threads 2] [--repeats 1] [--tol 0.01 0.0001]

Each row is one tolerance e, the same -e for all three and the same stopping
rule (summed minimum-norm sub-gradient <= e times the first iteration's times
max(min(#pos, #neg), 1) / l, 0.24 on a9a: LIBLINEAR's scaling, which snap-train
applies too). Cells: median wall time of `repeats` runs of the whole
command (reading a9a included) and its CPU time (user + system, all threads),
non-zeros (the bias among them), and the
objective ||w||_1 + C sum_i log(1 + exp(-y_i w.x_i)) computed here from each
saved model, with its distance to the best objective of the run.
docs/benchmarks/primal.md ("L1") has a run.
"""
import argparse
import os
import resource
import shutil
import statistics
import tempfile

import numpy as np
from sklearn.datasets import load_svmlight_file

from primal_bench import timed


def timed_cpu(command):
    """(wall seconds, CPU seconds of the child: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = timed(command)[0]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def liblinear_weights(path):
    """(w with the bias's weight last, the first label) from a LIBLINEAR model."""
    lines = open(path).read().split("\n")
    start = lines.index("w")
    header = dict(line.split(" ", 1) for line in lines[:start])
    w = np.array([float(line.split()[0]) for line in lines[start + 1:] if line.strip()])
    return w, float(header["label"].split()[0]), float(header["bias"])


def objective(x, y, c, path):
    w, first_label, bias = liblinear_weights(path)
    features = np.zeros(x.shape[1])
    features[: min(len(w) - 1, x.shape[1])] = w[: min(len(w) - 1, x.shape[1])]
    margins = x @ features + w[-1] * bias
    signs = np.where(y == first_label, 1.0, -1.0)  # w is the first label's
    return c * np.logaddexp(0.0, -signs * margins).sum() + np.abs(w).sum(), int((w != 0).sum())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--tol", type=float, nargs="+", default=[0.01, 0.0001])
    parser.add_argument("--skip-cd", action="store_true",
                        help="leave out plain coordinate descent (minutes at tight -e)")
    args = parser.parse_args()
    data = os.path.join(args.data_dir, "a9a")
    x, y = load_svmlight_file(data)
    liblinear = shutil.which("liblinear-train")
    scratch = tempfile.mkdtemp(prefix="l1_bench_")
    c = 1.0
    print("| -e | snap newGLMNET (-s 6) | snap coordinate descent (--solver cd) | liblinear-train -s 6 |")
    print("|---|---|---|---|")
    for tol in args.tol:
        commands = {
            "glmnet": [args.train, "-s", "6", "-c", "1", "-B", "1", "-e", repr(tol), "-n", str(args.threads), "-q",
                       "--model-format", "liblinear", data],
        }
        if not args.skip_cd:
            commands["cd"] = [args.train, "-s", "6", "--solver", "cd", "-c", "1", "-B", "1", "-e", repr(tol), "-n",
                              str(args.threads), "-q", "--model-format", "liblinear", data]
        if liblinear:
            commands["liblinear"] = [liblinear, "-s", "6", "-c", "1", "-B", "1", "-e", repr(tol), "-q", data]
        results = {}
        for name, command in commands.items():
            model = os.path.join(scratch, f"{name}.model")
            runs = [timed_cpu(command + [model]) for _ in range(args.repeats)]
            seconds = statistics.median(wall for wall, _ in runs)
            cpu = statistics.median(used for _, used in runs)
            results[name] = (seconds, cpu, *objective(x, y, c, model))
        best = min(value for _, _, value, _ in results.values())

        def cell(name):
            if name not in results:
                return "-"
            seconds, cpu, value, nnz = results[name]
            return f"{seconds:.2f} s ({cpu:.2f} s CPU), {nnz} nnz, {value:.4f} (+{(value - best) / best:.1e})"

        print(f"| {tol:g} | {cell('glmnet')} | {cell('cd')} | {cell('liblinear')} |", flush=True)
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
