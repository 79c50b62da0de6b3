#!/usr/bin/env python3
"""Two builds' primal Newton solver on the same problems, in the same run:
`snap-train -s 0` (the trust region, L2 logistic regression, a penalised bias
-B 1) from a BEFORE and an AFTER binary, alternated run by run so the machine's
load falls on both alike.

Usage: newton_builds_bench.py --before OLD/snap-train --after NEW/snap-train
           [--threads 2] [--repeats 3] [--tol 1e-4] DATA:C [DATA:C ...]

DATA is an svmlight or .snap file, C its cost. Each row: both builds' Newton
iterations, final relative duality gap and median seconds (the solver's own, as
snap-train reports them), and after / before. docs/benchmarks/primal.md ("A
block for the hot columns") has a run.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile


def fit(binary, data, cost, threads, tol):
    with tempfile.TemporaryDirectory() as scratch:
        command = [binary, "-s", "0", "-c", str(cost), "-B", "1", "-e", str(tol), "-n", str(threads), data,
                   os.path.join(scratch, "model")]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {result.stderr}")
    text = result.stdout + result.stderr
    match = re.search(r"(\d+) epochs, relative duality gap (\S+) <= tol \S+, ([0-9.e+-]+) s", text)
    if not match:
        raise SystemExit(f"{' '.join(command)}: no summary line in {text!r}")
    return int(match.group(1)), float(match.group(2)), float(match.group(3))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("problems", nargs="+", metavar="DATA:C")
    args = parser.parse_args()
    print(f"snap-train -s 0 -B 1 -e {args.tol} -n {args.threads}; median of {args.repeats}, alternated")
    print("| data | C | before: iterations, gap, s | after: iterations, gap, s | after / before |")
    print("|---|---|---|---|---|")
    for problem in args.problems:
        data, _, cost = problem.rpartition(":")
        runs = {"before": [], "after": []}
        for _ in range(args.repeats):
            for name in ("before", "after"):
                runs[name].append(fit(getattr(args, name), data, float(cost), args.threads, args.tol))
        cells = {}
        for name, results in runs.items():
            seconds = statistics.median(r[2] for r in results)
            cells[name] = (results[0][0], results[0][1], seconds)
        before, after = cells["before"], cells["after"]
        print(f"| {os.path.basename(data)} | {cost} | {before[0]}, {before[1]:.2e}, {before[2]:.3g} | "
              f"{after[0]}, {after[1]:.2e}, {after[2]:.3g} | {after[2] / before[2]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
