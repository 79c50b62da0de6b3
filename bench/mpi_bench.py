#!/usr/bin/env python3
"""Distributed (CoCoA+) scaling of snap-train under mpirun: 1 rank against 2.

Usage: bench/mpi_bench.py --build build-mpi [--rows 1000000 --features 100000 --nnz 50]
                          [--tol 1e-3] [--repeat 2] [--out docs/benchmarks/mpi.md]

Generates a synthetic binary-classification set (bench/parse_throughput generate,
rows x nnz non-zeros, kept under /tmp and reused), converted to the binary .snap
format, then times `mpirun -n K snap-train -s 0 --threads 1 -e TOL` for K = 1 and
2. Each run stops at the same relative duality gap TOL, so the training seconds
rank 0 reports are the time to that gap. snap-train's distribution line gives the
rounds, the bytes each rank reduced and the time inside collectives (transfer and
waiting for the slower rank, fastest and slowest rank). The best of --repeat runs
is kept. Writes a Markdown report with the machine, date, load average and
commands.
"""
import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys

DIST = re.compile(r"(\d+) ranks, rows per rank ([\d ]+); (\d+) rounds, (\d+) allreduce calls, (\d+) bytes reduced "
                  r"per rank \((\d+) per round\); time in collectives ([\d.e+-]+) to ([\d.e+-]+) s of ([\d.e+-]+) s")
SUMMARY = re.compile(r"snap-train: (\d+) epochs, relative duality gap ([\d.e+-]+) (<=|>) tol")


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def run(command):
    print("+", " ".join(shlex.quote(str(c)) for c in command), flush=True)
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                            env={**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                                 "OMP_WAIT_POLICY": "passive"})
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result.stdout


def train(args, ranks, data, sigma="adaptive"):
    command = ["mpirun", "--oversubscribe", "--bind-to", "core", "-n", ranks, f"{args.build}/snapml/cli/snap-train",
               "-s", 0, "-e", args.tol, "--threads", 1, "--local-epochs", args.local_epochs, "--max-iter", 1000,
               "--cocoa-sigma", sigma, data, "/tmp/snapml_mpi_bench.model"]
    out = run(command)
    dist, summary = DIST.search(out), SUMMARY.search(out)
    if not dist or not summary:
        sys.exit(f"unexpected output:\n{out}")
    return {
        "ranks": ranks, "rows": dist.group(2), "rounds": int(dist.group(3)), "bytes": int(dist.group(5)),
        "bytes_per_round": int(dist.group(6)), "comm_min": float(dist.group(7)), "comm_max": float(dist.group(8)),
        "seconds": float(dist.group(9)), "epochs": int(summary.group(1)), "gap": float(summary.group(2)),
        "converged": summary.group(3) == "<=", "command": " ".join(map(str, command)), "sigma": sigma,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build-mpi")
    parser.add_argument("--rows", type=int, default=1000000)
    parser.add_argument("--features", type=int, default=100000)
    parser.add_argument("--nnz", type=int, default=50)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--local-epochs", type=int, default=1)
    parser.add_argument("--chunk-rows", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", default="docs/benchmarks/mpi.md")
    args = parser.parse_args()

    stem = f"/tmp/snapml_mpi_bench_{args.rows}x{args.nnz}_{args.features}"
    data = f"{stem}_chunks{args.chunk_rows}.snap"
    if not os.path.exists(data):
        if not os.path.exists(stem + ".snap"):
            run([f"{args.build}/bench/parse_throughput", "generate", "--out", stem + ".svm", "--binary",
                 stem + ".snap", "--rows", args.rows, "--features", args.features, "--nnz", args.nnz])
            os.remove(stem + ".svm")  # only the binary file is trained on
        # Ranks hold whole chunks: small chunks keep the shares within one chunk of n / K.
        run([f"{args.build}/snapml/cli/snap-convert", "--chunk-rows", args.chunk_rows, stem + ".snap", data])
    load_before = load()
    results = {}
    # K = 1, K = 2 with the default (adaptive) sigma', and K = 2 with the paper's sigma' = K.
    for key, ranks, sigma in (("1", 1, "adaptive"), ("2", 2, "adaptive"), ("2K", 2, "K")):
        runs = [train(args, ranks, data, sigma) for _ in range(args.repeat)]
        results[key] = min(runs, key=lambda r: r["seconds"])
        for r in runs:
            print(f"K={ranks} sigma'={sigma}: {r['seconds']:.2f} s, {r['rounds']} rounds, gap {r['gap']:.3g}, "
                  f"collectives {r['comm_min']:.3g}-{r['comm_max']:.3g} s", flush=True)
    load_after = load()

    one, two = results["1"], results["2"]
    speedup = one["seconds"] / two["seconds"]
    efficiency = speedup / 2
    per_round_two = two["seconds"] / two["rounds"]
    comm_per_round = two["comm_min"] / two["rounds"]
    lines = [
        "# Distributed training (CoCoA+ under mpirun): 1 rank against 2",
        "",
        f"Generated by `bench/mpi_bench.py --build {args.build} --rows {args.rows} --features {args.features} "
        f"--nnz {args.nnz} --tol {args.tol} --local-epochs {args.local_epochs} --chunk-rows {args.chunk_rows} "
        f"--repeat {args.repeat}`.",
        "",
        f"- Machine: {cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        f"- Date: {datetime.datetime.now().isoformat(timespec='minutes')}",
        f"- Load average (1, 5, 15 min) before: {load_before}; after: {load_after}",
        f"- Data: synthetic binary classification, {args.rows} rows x {args.nnz} non-zeros "
        f"({args.rows * args.nnz / 1e6:.0f}M non-zeros), {args.features} features, binary .snap file in chunks of "
        f"{args.chunk_rows} rows (each rank maps its run of chunks, no copy)",
        f"- Training: L2 logistic regression (`-s 0`, C = 1), one thread per rank, stop at relative duality gap "
        f"<= {args.tol}, H = {args.local_epochs} local epoch(s) per round; best of {args.repeat} runs",
        "",
        "| ranks | sigma' | rows per rank | rounds | time to gap (s) | speed-up | efficiency | time per round (ms) "
        "| bytes reduced per round per rank | time in collectives, fastest..slowest rank (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results.values():
        s = one["seconds"] / r["seconds"]
        sigma = "-" if r["ranks"] == 1 else ("K" if r["sigma"] == "K" else "adaptive")
        lines.append(f"| {r['ranks']} | {sigma} | {r['rows']} | {r['rounds']} | {r['seconds']:.2f} | {s:.2f} | "
                     f"{100 * s / r['ranks']:.0f}% | {1e3 * r['seconds'] / r['rounds']:.1f} | {r['bytes_per_round']} "
                     f"| {r['comm_min']:.3g} .. {r['comm_max']:.3g} |")
    per_round_one = one["seconds"] / one["rounds"]
    lines += [
        "",
        f"Speed-up at 2 ranks: **{speedup:.2f}x**, scaling efficiency **{100 * efficiency:.0f}%** "
        f"(target >= 85%). A round at 2 ranks took {1e3 * per_round_two:.1f} ms, of which "
        f"{1e3 * comm_per_round:.2f} ms inside collectives on the rank that waited least "
        f"({100 * comm_per_round / per_round_two:.1f}%): the allreduce of 8 * (n_features + 1) = "
        f"{8 * (args.features + 1)} bytes of delta w plus the gap's two doubles. The slowest rank's "
        "collective time also holds its wait for the other rank (load imbalance and, on a shared machine, "
        "descheduling).",
        "",
        f"Per pass over the data (one round at K = 2 against one epoch at K = 1) the speed-up is "
        f"{per_round_one / per_round_two:.2f}x ({50 * per_round_one / per_round_two:.0f}% efficiency); the rest "
        f"of the end-to-end figure is the number of rounds: {two['rounds']} at K = 2 against {one['rounds']} "
        f"epochs at K = 1 with the adaptive sigma' (docs/distributed.md), {results['2K']['rounds']} with "
        "sigma' = K.",
        "",
        "Commands:",
        "",
        "```",
        *(r["command"] for r in results.values()),
        "```",
        "",
        "## Published references (in words)",
        "",
        "IBM's distributed deep learning library (PowerAI DDL, 2017) reported 95% scaling efficiency on 256 GPUs "
        "for ResNet-50 training: synchronous data-parallel SGD with a topology-aware allreduce over very large "
        "per-step compute, a regime where the number of steps does not grow with the number of workers. Snap ML "
        "(Duenner et al., NeurIPS 2018) trains GLMs with hierarchical CoCoA: a fast local solver (threads or a "
        "GPU) inside each node, CoCoA across nodes, with the local work per round sized so that communication is "
        "hidden. snapml has the same structure (one rank per node, threads inside it, H local epochs per round) "
        "at a much smaller scale. Unlike data-parallel SGD, CoCoA's rounds to a given duality gap depend on K "
        "and on the data: on this generated set, whose rows share few features, two ranks need no more rounds "
        "than one process needs epochs; on correlated data (a9a) they need several times more "
        "(docs/distributed.md, \"Rounds grow with K and with C\").",
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
