#!/usr/bin/env python3
"""Two builds' fits of the same problems, in the same run: `snap-train -s S`
(L2 logistic regression, a penalised bias -B 1; -s 0 the primal Newton solver's
trust region, -s 7 the dual solver) from a BEFORE and an AFTER binary,
alternated run by run so the machine's load falls on both alike.

Usage: two_builds_bench.py --before OLD/snap-train --after NEW/snap-train
           [--solver 0] [--threads 2] [--repeats 3] [--tol 1e-4] [--max-iter N]
           [--problem "--loss multinomial --penalty l1 --l1-ratio 0.5"] DATA:C [DATA:C ...]

--problem replaces `-s S` with other snap-train options (the multinomial L1 fit:
docs/benchmarks/primal.md, "Multinomial L1: the zeros' entries only"). A fit
that stops short of tol (max-iter, or no decrease representable) is reported
with its gap all the same.

DATA is an svmlight or .snap file, C its cost. Each row: both builds' iterations
(Newton iterations or epochs), final relative duality gap, median seconds (the
solver's own, as snap-train reports them) and median wall seconds of the whole
command (reading the data and what train() does before the solver included),
and after / before of each. docs/benchmarks/primal.md ("A block for the hot
columns") and docs/benchmarks/cpu.md (9.10) have runs.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time


def fit(binary, problem, data, cost, threads, tol, max_iter):
    with tempfile.TemporaryDirectory() as scratch:
        command = [binary, *problem, "-c", str(cost), "-B", "1", "-e", str(tol), "-n", str(threads)]
        if max_iter:
            command += ["--max-iter", str(max_iter)]
        command += [data, os.path.join(scratch, "model")]
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {result.stderr}")
    text = result.stdout + result.stderr
    match = re.search(r"(\d+) epochs, relative duality gap (\S+) [<>]=? tol \S+, ([0-9.e+-]+) s", text)
    if not match:
        raise SystemExit(f"{' '.join(command)}: no summary line in {text!r}")
    return int(match.group(1)), float(match.group(2)), float(match.group(3)), wall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--solver", type=int, choices=(0, 7), default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--max-iter", type=int, default=0)
    parser.add_argument("--problem", default=None, help="snap-train options instead of -s SOLVER")
    parser.add_argument("problems", nargs="+", metavar="DATA:C")
    args = parser.parse_args()
    options = args.problem.split() if args.problem else ["-s", str(args.solver)]
    print(f"snap-train {' '.join(options)} -B 1 -e {args.tol} -n {args.threads}"
          f"{f' --max-iter {args.max_iter}' if args.max_iter else ''}; median of {args.repeats}, alternated")
    print("| data | C | before: iterations, gap, s, wall s | after: iterations, gap, s, wall s | after / before: s, "
          "wall s |")
    print("|---|---|---|---|---|")
    for problem in args.problems:
        data, _, cost = problem.rpartition(":")
        runs = {"before": [], "after": []}
        for _ in range(args.repeats):
            for name in ("before", "after"):
                runs[name].append(fit(getattr(args, name), options, data, float(cost), args.threads, args.tol,
                                      args.max_iter))
        cells = {}
        for name, results in runs.items():
            seconds = statistics.median(r[2] for r in results)
            wall = statistics.median(r[3] for r in results)
            cells[name] = (results[0][0], results[0][1], seconds, wall)
        before, after = cells["before"], cells["after"]
        print(f"| {os.path.basename(data)} | {cost} | {before[0]}, {before[1]:.2e}, {before[2]:.3g}, {before[3]:.3g} | "
              f"{after[0]}, {after[1]:.2e}, {after[2]:.3g}, {after[3]:.3g} | {after[2] / before[2]:.2f}, "
              f"{after[3] / before[3]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
