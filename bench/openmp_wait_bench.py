#!/usr/bin/env python3
"""How idle OpenMP threads should wait (snapml/threads.h, kOpenMPSpinCount): whole
snap-train runs at -n 2 with libgomp's GOMP_SPINCOUNT at 0 (sleep at once), a few
candidate values and libgomp's default (300000), against -n 1, on a quiet machine and
with one competing busy process (a Python spin loop on one core: what another
user's job does to a shared machine). Prints a Markdown table of median wall
seconds and of CPU seconds (user + system) over --repeat runs.

    cmake --build build -j2 --target snap-train
    python3 bench/openmp_wait_bench.py --build build
"""

import argparse
import multiprocessing
import os
import pathlib
import resource
import statistics
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "datasets"

# (name, snap-train arguments): many short epochs, where waiting matters most,
# and the Python benchmark's small logistic sets.
RUNS = [
    ("mushrooms hinge, 20 epochs", ["-s", "3", "-e", "1e-12", "--max-iter", "20", str(DATA / "mushrooms")]),
    ("a9a logistic, tol 1e-4", ["-s", "7", "-B", "1", "-e", "1e-4", str(DATA / "a9a")]),
    ("w8a logistic, tol 1e-4", ["-s", "7", "-B", "1", "-e", "1e-4", str(DATA / "w8a")]),
]


def spin_forever():
    while True:
        pass


def timed(command, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--spin-counts", default="0,1000,10000,300000")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    train = str((REPO / args.build / "snapml" / "cli" / "snap-train").resolve())
    base = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    settings = [("-n 1", "1", None)] + [(f"-n 2, GOMP_SPINCOUNT {s}", "2", s) for s in args.spin_counts.split(",")]
    print(f"load average at start: {os.getloadavg()[0]:.2f}\n")
    print("| machine | run | " + " | ".join(name for name, _, _ in settings) + " |")
    print("|---" * (len(settings) + 2) + "|")
    for machine in ("quiet", "one busy process"):
        competitor = None
        if machine != "quiet":
            competitor = multiprocessing.Process(target=spin_forever, daemon=True)
            competitor.start()
        try:
            for run_name, arguments in RUNS:
                cells = []
                samples = {name: [] for name, _, _ in settings}
                for _ in range(args.repeat):  # settings interleaved, so drift hits all alike
                    for name, threads, spin in settings:
                        env = dict(base, GOMP_SPINCOUNT=spin) if spin is not None else dict(base)
                        samples[name].append(timed([train, "-q", "-n", threads, *arguments, "/tmp/openmp_wait.model"], env))
                for name, _, _ in settings:
                    wall = statistics.median(s[0] for s in samples[name])
                    cpu = statistics.median(s[1] for s in samples[name])
                    cells.append(f"{wall:.3f} s ({cpu:.3f} CPU)")
                print(f"| {machine} | {run_name} | " + " | ".join(cells) + " |", flush=True)
        finally:
            if competitor is not None:
                competitor.terminate()
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
