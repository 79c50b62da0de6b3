#!/usr/bin/env python3
"""Epochs to the tolerance, streamed against resident: how well a streamed epoch
mixes the rows (docs/out-of-core.md, "Convergence"). Prints a Markdown table.

For each data set, snap-train (SDCA, one thread, a fixed seed) trains the .snap
file in memory (no budget) and then streamed under budgets that hold 2, 3, 4, 6
and 9 ring buffers of the largest chunk: the solver mixes the rows of all buffers
but one (its window; 2 buffers: one chunk at a time, what every streamed epoch
did before the window). The budget for b buffers is state + b x largest chunk +
(b - 2) x 8 bytes a row of the largest chunk (plan_binary_source). The epoch
count is the number of rows of --history (epoch 0 is the start).

    cmake --build build -j2 --target snap-train snap-convert snapml-synthetic-snap
    python3 bench/ooc_epochs_bench.py --build build [--a9a PATH] [--seeds 3]
"""

import argparse
import pathlib
import re
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
BUFFERS = (2, 3, 4, 6, 9)


def run(command, check=True):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed ({result.returncode}): {result.stderr}")
    return result


def largest_chunk_and_state(train, data):
    """The largest chunk's bytes and the state's, from the refusal of a 1-byte budget."""
    message = run([train, "--max-memory", "1", data, "/dev/null"], check=False).stderr
    largest = re.search(r"2 buffers of its largest chunk \((\d+) bytes\)", message)
    state = re.search(r"8 a feature: (\d+) bytes\)", message)
    if not largest or not state:
        sys.exit(f"unexpected message: {message}")
    return int(largest.group(1)) // 2, int(state.group(1))


def epochs(train, data, work, options, seed, budget=None):
    history = work / "history.csv"
    extra = ["--max-memory", budget] if budget else []
    run([train, *options, "--seed", seed, "-n", 1, "-q", *extra, "--history", history, data, work / "model"])
    return len(history.read_text().splitlines()) - 2  # header and epoch 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--work-dir", default="/tmp/snapml_ooc_epochs")
    parser.add_argument("--a9a", default=str(REPO.parent / "shared" / "datasets" / "a9a"))
    parser.add_argument("--seeds", type=int, default=3, help="seeds per configuration; the median is reported")
    args = parser.parse_args()
    build = (REPO / args.build).resolve()
    train = build / "snapml" / "cli" / "snap-train"
    convert = build / "snapml" / "cli" / "snap-convert"
    synthetic = build / "tests" / "cli" / "snapml-synthetic-snap"
    work = pathlib.Path(args.work_dir)
    work.mkdir(parents=True, exist_ok=True)

    sets = []
    a9a = work / "a9a_1000.snap"
    run([convert, "--chunk-rows", 1000, args.a9a, a9a])
    sets.append(("a9a (32,561 x 123, chunks of 1,000 rows, file order)", a9a, 1000, ["-s", "7"]))
    generated = work / "generated_200k.snap"
    if not generated.exists():
        run([synthetic, generated, 200000, 2000, 20, 5000, 7])
    sets.append(("generated (200,000 x 2,000, 20 a row, chunks of 5,000 rows)", generated, 5000, ["-s", "7"]))
    sets.append(("same, squared hinge, C = 0.1", generated, 5000, ["-s", "1", "-c", "0.1", "--no-shrinking"]))

    header = "| data | chunks | resident | " + " | ".join(f"{b} buffers (window {b - 1})" for b in BUFFERS) + " |"
    lines = [header, "|---|---:|---:|" + "---:|" * len(BUFFERS)]
    for name, data, chunk_rows, options in sets:
        largest, state = largest_chunk_and_state(train, data)
        summary = run([convert, "--summary", data]).stdout
        chunks = int(re.search(r"chunks:\s+(\d+)", summary).group(1))
        window_row_bytes = 8 * chunk_rows  # 8 bytes a row of the largest chunk
        resident = [epochs(train, data, work, options, seed) for seed in range(args.seeds)]
        cells = [f"{statistics.median(resident):g}"]
        for b in BUFFERS:
            budget = state + b * largest + (b - 2) * window_row_bytes
            streamed = [epochs(train, data, work, options, seed, budget) for seed in range(args.seeds)]
            cells.append(f"{statistics.median(streamed):g}")
            print(f"{name}: {b} buffers ({budget} bytes): {streamed} (resident {resident})", flush=True)
        lines.append(f"| {name} | {chunks} | " + " | ".join(cells) + " |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
