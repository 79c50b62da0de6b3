#!/usr/bin/env python3
"""Criteo click-log benchmark: snapml against its peers on Criteo-like data.

    python3 bench/criteo/run.py [--rows N] [--threads 2] [--gpu] [--sample]

Generates N Criteo-schema rows with a planted model (snap-criteo-gen), holds out the
last rows as the test set, converts them for each peer (snap-convert --from criteo),
trains L2-regularised logistic regression with every peer that is installed at a
ladder of increasing budgets, and writes docs/benchmarks/criteo.md and
docs/benchmarks/criteo_time_to_logloss.png. --sample runs every peer once to
convergence on the real 1,000-row sample (a correctness check) and updates its
section of criteo.md. What each run measured is kept in docs/benchmarks/criteo_*.json,
so either run rewrites the markdown with both sections. See docs/benchmarks/criteo.md.
"""
import argparse
import datetime
import importlib
import json
import os
import shlex
import subprocess
import sys
import time
from types import SimpleNamespace

import data
import peers
import report

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(REPO, "docs", "benchmarks")
# 1M rows (900k train, 100k test): on the 2 shared cores of the development
# machine the whole harness takes about 15 minutes (docs/benchmarks/criteo.md).
DEFAULT_ROWS = 1_000_000


def tools_in(build):
    t = SimpleNamespace(gen=os.path.join(build, "datasets", "snap-criteo-gen"),
                        convert=os.path.join(build, "snapml", "cli", "snap-convert"),
                        train=os.path.join(build, "snapml", "cli", "snap-train"))
    for path in vars(t).values():
        if not os.access(path, os.X_OK):
            sys.exit(f"run.py: {path} not found; build it first (see docs/benchmarks/criteo.md) or pass --build")
    return t


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as error:
        return f"unknown ({error})"


def machine():
    lscpu = sh("lscpu")
    field = lambda key: next((l.split(":", 1)[1].strip() for l in lscpu.splitlines() if l.startswith(key)), "?")  # noqa
    return {"cpu": field("Model name"), "cpus": field("CPU(s)"), "memory": sh("free -g | awk '/Mem:/ {print $2}'"),
            "os": sh(". /etc/os-release && echo $PRETTY_NAME"), "nproc": sh("nproc")}


def versions(tools):
    v = {"python": sys.version.split()[0],
         "snapml (this repo)": sh(f"git -C {REPO} rev-parse --short HEAD") + " + working tree",
         "liblinear-tools": sh("dpkg-query -W -f='${Version}' liblinear-tools") or "not installed"}
    for module, pip in (("sklearn", "scikit-learn"), ("numpy", "numpy"), ("scipy", "scipy"), ("snapml", "snapml"),
                        ("vowpalwabbit", "vowpalwabbit"), ("matplotlib", "matplotlib")):
        found = sh(f"{sys.executable} -m pip show {pip} 2>/dev/null | sed -n 's/^Version: //p'")
        v[pip if pip != "snapml" else "IBM snapml"] = found or "not installed"
    return v


def available(module):
    if module is None:
        return None
    try:
        importlib.import_module(module)
        return None
    except Exception as error:
        return f"not installable / not importable: {error}"


def run_peers(ctx, split, ladder, time_cap, timeout, only, log):
    results = []
    for key, make, module in peers.PEERS:
        if only and key not in only:
            continue
        missing = available(module)
        if key == "liblinear" and not sh("command -v liblinear-train"):
            missing = "liblinear-train not found (apt-get install liblinear-tools)"
        peer = make(ctx, split)
        entry = {"key": key, "name": peer.name, "budget_kind": peer.budget_kind, "threads": peer.threads,
                 "loads_data": peer.loads_data, "points": []}
        if missing:
            entry["error"] = missing
            log(f"{peer.name}: {missing}")
        else:
            log(f"{peer.name}:")
            if not ladder:
                peer.ladder = [peer.converged]  # --sample: one fit to convergence
            entry["points"] = peers.run_ladder(peer, time_cap, timeout, log=log)
        results.append(entry)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"rows generated (default {DEFAULT_ROWS})")
    ap.add_argument("--test-fraction", type=float, default=0.1, help="last rows held out (default 0.1)")
    ap.add_argument("--threads", type=int, default=2, help="threads for snapml, IBM snapml and the tools")
    ap.add_argument("--C", type=float, default=0.1, help="inverse regularisation, the same for all (default 0.1)")
    ap.add_argument("--hash-bits", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1, help="generator seed")
    ap.add_argument("--gpu", action="store_true", help="pass --gpu to snap-train")
    ap.add_argument("--sample", action="store_true", help="the real 1,000-row sample: correctness only")
    ap.add_argument("--peer-time", type=float, default=120.0,
                    help="stop a peer's ladder once its fits took this many seconds (default 120)")
    ap.add_argument("--fit-timeout", type=float, default=300.0,
                    help="give up on one fit after this many seconds (default 300)")
    ap.add_argument("--peers", default="", help="comma-separated subset of: "
                    + ", ".join(key for key, _, _ in peers.PEERS) + " (default: all)")
    ap.add_argument("--build", default=os.path.join(REPO, "build-criteo-bench"), help="the CMake build folder")
    ap.add_argument("--work", default="/tmp/snapml-criteo-bench", help="scratch folder for the data")
    ap.add_argument("--out", default=OUT, help="where criteo.md and the plot go")
    args = ap.parse_args()

    tools = tools_in(args.build)
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    log = lambda *a: print(*a, flush=True)  # noqa: E731
    started = time.perf_counter()
    run = {"command": " ".join(["python3 bench/criteo/run.py"] + [shlex.quote(a) for a in sys.argv[1:]]),
           "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "uptime_start": sh("uptime"), "machine": machine(), "versions": versions(tools), "C": args.C,
           "threads": args.threads, "hash_bits": args.hash_bits, "gpu": args.gpu}
    log(f"{run['uptime_start']}")

    if args.sample:
        split = data.prepare_sample(tools, args.work, 200, args.hash_bits, args.threads)
    else:
        log(f"generating {args.rows} rows and converting them under {args.work} ...")
        split = data.prepare_generated(tools, args.work, args.rows, args.test_fraction, args.seed, args.threads,
                                       args.hash_bits)
        log(f"  {split.prep_seconds}")
        run["reader"] = data.reader_throughput(tools, split.train_tsv, split.train_rows,
                                               sorted({1, args.threads}), args.hash_bits)
        log(f"reader: {run['reader']}")
        os.remove(split.train_tsv)
    run["split"] = {"train_rows": split.train_rows, "test_rows": split.test_rows, "generator": split.generator,
                    "prep_seconds": split.prep_seconds}
    # snap-train's duality-gap tolerance: loose enough that --max-iter is the budget on the
    # ladder, tight for the converged fit on the sample.
    ctx = SimpleNamespace(tools=tools, work=args.work, C=args.C, threads=args.threads, gpu=args.gpu,
                          tol=1e-6 if args.sample else 1e-4,
                          test_y=data.test_labels(split))
    run["test_click_rate"] = float(ctx.test_y.mean())
    run["peers"] = run_peers(ctx, split, not args.sample, args.peer_time, args.fit_timeout,
                             set(filter(None, args.peers.split(","))), log)
    run["uptime_end"] = sh("uptime")
    run["wall_seconds"] = time.perf_counter() - started

    name = "criteo_sample.json" if args.sample else "criteo_results.json"
    with open(os.path.join(args.out, name), "w") as f:
        json.dump(run, f, indent=1, default=str)
    if args.sample:
        print(report.sample_table(run))
    report.write(args.out)
    log(f"done in {run['wall_seconds']:.0f} s; {run['uptime_end']}")


if __name__ == "__main__":
    main()
