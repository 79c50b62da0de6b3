#!/usr/bin/env python3
"""The CPU solvers on a lent 16-core machine (issue 35), about 150 s: prints the
Markdown tables of docs/benchmarks/threads.md, "16 cores".

    python3 bench/gpu/cpu_scaling.py TOOLS_DIR [--work /tmp/cpu_scaling] [--threads 1,4,8,16]
                                     [--ours-threads 4,16,16:atomic] [--newton-threads 4,8,16]
                                     [--rows 2000000] [--big-rows 10000000]
                                     [--deadline 150]

TOOLS_DIR holds snap-train, snap-criteo-gen and snap-convert; IBM snapml (`snapml`)
must be importable for the side by side (else that table says so). Steps, each
skipped once the deadline is near (the table says which):
  1. the click log: snap-criteo-gen --seed 11, ROWS training rows and ROWS/10 test rows
     after them, snap-convert --from criteo --hash-bits 20 (docs/benchmarks/criteo.md);
  2. threads: snap-train -s 7 -c 0.1 -B 1 -e 1e-4 -n T (the default thread updates,
     OMP_PROC_BIND=close, OMP_PLACES=cores) for every T: epochs, the solver's seconds,
     seconds an epoch, speed-up of the epoch and of the fit over one thread; and
     16 threads with --thread-updates replicas, the scheme before issue 35;
  3. the side by side at the largest T: IBM snapml LogisticRegression(regularizer=10,
     fit_intercept=True, dual=True, n_jobs=T) for 32 epochs (tol 1e-9), its test log
     loss the target; ours -s 7 -n T' --max-iter E for E = 2, 3, 4, ... until its test
     log loss is at most the target, for each T' (and thread updates) of
     --ours-threads (default: the largest T, auto; T:newton the primal Newton solver,
     its iterations for E = 5, 6, 7, ...): our time over IBM's (the issue asks <= 0.6);
  4. the primal Newton solver (-s 0 -e 1e-4) at each T of --newton-threads (default:
     the largest T; 8.5 s at 16 before issue 35, which asks at most 4.25 s): its
     iterations, seconds and speed-up over the first T listed;
  5. the 10M-row log (2^22 columns), if the 2M steps left time: one thread for 3
     epochs (seconds an epoch) and the largest T to 1e-4.
"""

import argparse
import os
import re
import subprocess
import sys
import time

C = 0.1
T0 = time.time()


def left(deadline):
    return deadline - (time.time() - T0)


def run(cmd, env=None, timeout=None):
    """The finished process and its wall seconds; one that ran past `timeout` comes
    back as returncode 124 with what it wrote (the table says so, the steps go on)."""
    start = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        def text(b):
            return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        r = subprocess.CompletedProcess(cmd, 124, text(e.stdout), text(e.stderr) + f"\ntimed out after {timeout:.0f} s")
    return r, time.perf_counter() - start


def pinned(threads):
    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "close")
    env.setdefault("OMP_PLACES", "cores")
    return env


def generate(tools, work, rows, bits, threads, with_test=True):
    train, test = os.path.join(work, f"train{rows}.snap"), os.path.join(work, f"test{rows}.snap")
    if os.path.exists(train) and (os.path.exists(test) or not with_test):
        return train, test, 0.0
    start = time.perf_counter()
    parts = ((0, rows, train), (rows, rows // 10, test)) if with_test else ((0, rows, train),)
    for first, count, out in parts:
        tsv = out + ".tsv"
        subprocess.run([os.path.join(tools, "snap-criteo-gen"), "--rows", str(count), "--first-row", str(first),
                        "--seed", "11", "--threads", str(threads), "--output", tsv], check=True, capture_output=True)
        subprocess.run([os.path.join(tools, "snap-convert"), "--from", "criteo", "--hash-bits", str(bits),
                        "--threads", str(threads), tsv, out], check=True, capture_output=True)
        os.remove(tsv)
    return train, test, time.perf_counter() - start


def train(tools, data, threads, extra, work, test=None, timeout=None, solver="7"):
    """snap-train's epochs (Newton iterations with solver 0), solver seconds and test log
    loss (None where absent)."""
    cmd = [os.path.join(tools, "snap-train"), "-s", solver, "-c", str(C), "-B", "1", "-n", str(threads), *extra]
    if test:
        cmd += ["--test", test]
    cmd += [data, os.path.join(work, "model")]
    r, wall = run(cmd, env=pinned(threads), timeout=timeout)
    text = r.stdout + r.stderr
    fit = re.search(r"(\d+) (?:epochs|iterations?), .*?, ([\d.e+-]+) s; model saved", text)
    loss = re.search(r"Test log loss = (\S+)", text)
    if r.returncode != 0 or not fit:
        return {"error": text.strip()[-300:], "wall": wall}
    return {"epochs": int(fit.group(1)), "seconds": float(fit.group(2)), "wall": wall,
            "logloss": float(loss.group(1)) if loss else None, "line": text.strip().splitlines()[-1]}


def scaling_table(tools, data, rows, work, deadline, label):
    print(f"\n### Threads, {label} (-s 7 -c {C} -B 1 -e 1e-4; OMP_PROC_BIND=close, OMP_PLACES=cores)\n")
    print("| threads | thread updates | epochs | solver s | s / epoch | epoch speed-up | fit speed-up |")
    print("|---|---|---|---|---|---|---|")
    base = None
    for t, how in rows:
        if left(deadline) < 20:
            print(f"| {t} | {how or 'auto'} | skipped: deadline | | | | |")
            continue
        extra = ["-e", "1e-4"] + (["--thread-updates", how] if how else [])
        r = train(tools, data, t, extra, work, timeout=max(5, left(deadline) - 10))
        if "error" in r:
            print(f"| {t} | {how or 'auto'} | failed: {r['error'][:120]} | | | | |")
            continue
        per = r["seconds"] / r["epochs"]
        if base is None:
            base = r
        base_per = base["seconds"] / base["epochs"]
        print(f"| {t} | {how or 'auto'} ({sharing(r['line'])}) | {r['epochs']} | "
              f"{r['seconds']:.2f} | {per:.3f} | {base_per / per:.1f}x | {base['seconds'] / r['seconds']:.1f}x |",
              flush=True)


def sharing(line):
    """How the fit's threads shared w, from snap-train's last line: "4 replicas"
    (Auto's team may be fewer than the threads: thread_updates.h, replica_team)
    or "shared"."""
    team = re.search(r"(\d+) threads, each on a replica", line)
    return f"{team.group(1)} replicas" if team else "shared"


def small_sets(tools, folder, threads, work, deadline):
    """a9a and w8a (-s 7 -c 1 -B 1 -e 1e-4 --max-iter 1000): epochs at every team size
    and thread updates scheme, the issue's 1.3x of one thread's the bar."""
    print("\n### Epochs against threads: a9a, w8a (-s 7 -c 1 -B 1 -e 1e-4 --max-iter 1000)\n")
    print("| data | threads | thread updates | epochs | solver s | epochs / one thread's | last line |")
    print("|---|---|---|---|---|---|---|")
    for name in ("a9a", "w8a"):
        path = os.path.join(folder, name)
        one = None
        for t in threads:
            for how in ((None,) if t == 1 else (None, "shared", "replicas", "atomic")):
                if left(deadline) < 100:
                    print(f"| {name} | {t} | {how or 'auto'} | skipped: deadline | | | |")
                    continue
                cmd = [os.path.join(tools, "snap-train"), "-s", "7", "-c", "1", "-B", "1", "-n", str(t), "-e", "1e-4",
                       "--max-iter", "1000", *(["--thread-updates", how] if how else []), path,
                       os.path.join(work, "small-model")]
                r, _ = run(cmd, env=pinned(t), timeout=30)
                text = (r.stdout + r.stderr).strip()
                last = text.splitlines()[-1] if text else ""
                fit = re.search(r"(\d+) (?:epochs|iterations?), .*?, ([\d.e+-]+) s; model saved", text)
                if r.returncode != 0 or not fit:
                    print(f"| {name} | {t} | {how or 'auto'} | failed (exit {r.returncode}) | | | {last[:150]} |")
                    continue
                epochs = int(fit.group(1))
                one = one or epochs
                print(f"| {name} | {t} | {how or 'auto'} | {epochs} | {float(fit.group(2)):.3f} | {epochs / one:.2f} | "
                      f"{last[:150]} |", flush=True)


def side_by_side(tools, train_path, test_path, threads, ours_threads, work, deadline):
    print(f"\n### Side by side at {threads} threads: time to IBM snapml's 32-epoch test log loss\n")
    try:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        from criteo.snapfile import read_snap
        import numpy as np
        from snapml import LogisticRegression
    except ImportError as e:
        print(f"IBM snapml (or numpy) not importable: {e}")
        return
    X, y = read_snap(train_path)
    Xt, yt = read_snap(test_path)
    LogisticRegression(regularizer=1 / C, fit_intercept=True, dual=True, max_iter=1, n_jobs=threads).fit(
        X[:1000], y[:1000])  # the library's load out of the timing
    model = LogisticRegression(regularizer=1 / C, fit_intercept=True, intercept_scaling=1.0, dual=True,
                               max_iter=32, tol=1e-9, n_jobs=threads)
    start = time.perf_counter()
    model.fit(X, y)
    ibm_s = time.perf_counter() - start
    p = np.clip(model.predict_proba(Xt)[:, list(model.classes_).index(1.0)], 1e-15, 1 - 1e-15)
    target = float(-np.mean(yt * np.log(p) + (1 - yt) * np.log(1 - p)))
    print("| peer | epochs | fit s | test log loss | ours / IBM |")
    print("|---|---|---|---|---|")
    print(f"| IBM snapml CPU, n_jobs={threads} | 32 | {ibm_s:.2f} | {target:.5f} | |", flush=True)
    # Ours at each team of ours_threads (the fewest first: on the 2-core machine's
    # count of dealt workers the smallest team reached the target first,
    # docs/benchmarks/threads.md, "Epochs to IBM's test log loss, by the team").
    # A team "T:newton" is the primal Newton solver (-s 0) at T threads, its
    # iterations for the epochs, from 5: its iterates do not depend on the
    # threads, and on the 2-core machine the 2M-row log's 4th is at 0.0969 and
    # its 5th at 0.09394 (docs/benchmarks/primal.md, "The Newton solver to IBM's
    # test log loss").
    for t, how in ours_threads:
        newton = how == "newton"
        solver = "0" if newton else "7"
        updates = ["--thread-updates", how] if how and not newton else []
        label = " ".join([f"-s {solver} -n {t}", *updates])
        for epochs in (5, 6, 7, 8, 10) if newton else (2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32):
            if left(deadline) < 15:
                print(f"| ours {label} | {epochs} | skipped: deadline | | |")
                return
            extra = ["-e", "1e-9", "--max-iter", str(epochs)] + updates
            r = train(tools, train_path, t, extra, work, test=test_path, timeout=max(5, left(deadline) - 5),
                      solver=solver)
            if "error" in r:
                print(f"| ours {label} | {epochs} | failed: {r['error'][:120]} | | |")
                break
            print(f"| ours {label} | {r['epochs']} | {r['seconds']:.2f} | {r['logloss']:.5f} | "
                  f"{r['seconds'] / ibm_s:.2f} |", flush=True)
            if r["logloss"] is not None and r["logloss"] <= target:
                break


def teams(text):
    """'T:updates' or 'T' items, comma-separated: (T, updates or None for auto); the
    updates 'newton' name the primal Newton solver (the side by side's teams)."""
    out = []
    for item in text.split(","):
        t, _, how = item.partition(":")
        out.append((int(t), None if how in ("", "auto") else how))
    return out


def newton_table(tools, data, thread_counts, work, deadline):
    """The primal Newton solver's fit to 1e-4 at each thread count (pinned)."""
    print(f"\n### Newton, -s 0 -c {C} -B 1 -e 1e-4 (OMP_PROC_BIND=close, OMP_PLACES=cores)\n")
    print("| threads | Newton iterations | solver s | speed-up over the first row |\n|---|---|---|---|")
    base = None
    for t in thread_counts:
        if left(deadline) < 10:
            print(f"| {t} | skipped: deadline | | |")
            continue
        r = train(tools, data, t, ["-e", "1e-4"], work, timeout=max(5, left(deadline)), solver="0")
        if "error" in r:
            print(f"| {t} | failed: {r['error'][:120]} | | |")
            continue
        base = base or r["seconds"]
        print(f"| {t} | {r['epochs']} | {r['seconds']:.2f} | {base / r['seconds']:.2f}x |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tools")
    parser.add_argument("--work", default="/tmp/cpu_scaling")
    parser.add_argument("--threads", default="1,4,8,16")
    parser.add_argument("--runs", default=None,
                        help="the thread table's rows, T:updates (auto, shared, replicas, atomic) comma-separated; "
                             "default: every --threads T auto, and the largest on replicas")
    parser.add_argument("--small-data", default=None,
                        help="a folder with a9a and w8a: their dual fits to 1e-4 at every --threads T, "
                             "each thread updates scheme (epochs to the tolerance against one thread's)")
    parser.add_argument("--ours-threads", default=None,
                        help="the side by side's teams of ours, T or T:updates (auto, shared, replicas, atomic, newton) "
                             "comma-separated (default: the largest T); IBM snapml runs at the largest T")
    parser.add_argument("--newton-threads", default=None,
                        help="the primal Newton solver's thread counts, comma-separated (default: the largest T)")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--big-rows", type=int, default=10_000_000)
    parser.add_argument("--deadline", type=float, default=150.0)
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    top = max(threads)
    if args.runs:
        runs = teams(args.runs)
    else:
        runs = [(t, None) for t in threads] + [(top, "replicas")]
    os.makedirs(args.work, exist_ok=True)
    print(f"## CPU threads: {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M:%S')}")
    train_path, test_path, made = generate(args.tools, args.work, args.rows, 20, top)
    print(f"\nclick log: {args.rows:,} training rows, {args.rows // 10:,} test rows, generated in {made:.1f} s")
    if args.small_data:
        small_sets(args.tools, args.small_data, threads, args.work, args.deadline)
    scaling_table(args.tools, train_path, runs, args.work, args.deadline - 60, f"{args.rows:,} rows")
    ours_threads = teams(args.ours_threads) if args.ours_threads else [(top, None)]
    side_by_side(args.tools, train_path, test_path, top, ours_threads, args.work, args.deadline - 45)
    newton_threads = [int(t) for t in args.newton_threads.split(",")] if args.newton_threads else [top]
    newton_table(args.tools, train_path, newton_threads, args.work, args.deadline - 30)
    if left(args.deadline) < 60:
        print(f"\n{args.big_rows:,}-row log: skipped (the deadline)")
        return
    big, _, made = generate(args.tools, args.work, args.big_rows, 22, top, with_test=False)
    print(f"\n{args.big_rows:,}-row log (2^22 columns) generated in {made:.1f} s")
    print("\n| threads | run | epochs | solver s | s / epoch |\n|---|---|---|---|---|")
    for t, extra in ((1, ["-e", "1e-12", "--max-iter", "3"]), (top, ["-e", "1e-4"])):
        if left(args.deadline) < 10:
            print(f"| {t} | skipped: deadline | | | |")
            continue
        r = train(args.tools, big, t, extra, args.work, timeout=max(5, left(args.deadline)))
        if "error" in r:
            print(f"| {t} | failed: {r['error'][:120]} | | | |")
        else:
            print(f"| {t} | {' '.join(extra)} | {r['epochs']} | {r['seconds']:.2f} | {r['seconds'] / r['epochs']:.3f} |",
                  flush=True)
    print(f"\ntotal {time.time() - T0:.0f} s")


if __name__ == "__main__":
    main()
