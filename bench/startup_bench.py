#!/usr/bin/env python3
"""Fixed start-up cost of the command-line tools (issue: fixed costs that scale
with nothing): wall time of `snap-train --help` and of a9a logistic regression end
to end, beside LIBLINEAR's `liblinear-train` in the same run. Medians of --repeats
runs; docs/benchmarks/startup.md has the results and the machine.

    python3 bench/startup_bench.py --build build --data-dir ../shared/datasets
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def wall(argv, repeats, env=None):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--data-dir", default=os.path.join("..", "shared", "datasets"))
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()
    tools = os.path.join(args.build, "snapml", "cli")
    train = os.path.join(tools, "snap-train")
    a9a = os.path.join(args.data_dir, "a9a")
    liblinear = shutil.which("liblinear-train")
    rows = [("snap-train --help", wall([train, "--help"], args.repeats))]
    if liblinear:
        # liblinear-train without arguments prints its usage: its --help.
        rows.append(("liblinear-train (usage)", wall([liblinear], args.repeats)))
    with tempfile.TemporaryDirectory() as scratch:
        model = os.path.join(scratch, "m")
        fit_repeats = max(3, args.repeats // 4)
        rows.append(("snap-train -q -s 0 a9a (default threads)", wall([train, "-q", "-s", "0", a9a, model], fit_repeats)))
        rows.append(("snap-train -q -s 0 -n 1 a9a", wall([train, "-q", "-s", "0", "-n", "1", a9a, model], fit_repeats)))
        if liblinear:
            rows.append(("liblinear-train -q -s 0 a9a", wall([liblinear, "-q", "-s", "0", a9a, model], fit_repeats)))
    print(f"| command | median wall (ms) |\n|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1e3:.1f} |")


if __name__ == "__main__":
    main()
