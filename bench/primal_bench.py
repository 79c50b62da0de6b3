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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--c", type=float, nargs="+", default=[1, 10, 100, 1e6])
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
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
