"""The device side by side (bench/gpu_check.sh run side): snapml against IBM snapml on
one generated Criteo-like split, L2 logistic regression, C = 0.1, the intercept a
penalised constant feature in both (LIBLINEAR's -B 1, IBM's fit_intercept). Ours: the
GPU Newton solver (snap-train --gpu -s 0) at a ladder of tolerances on the relative
duality gap, and the CPU SDCA solver on all cores; IBM: its GPU and CPU solvers
(dual, as its users run them) at a ladder of epoch budgets. Prints one JSON line per
fit and a table last; fit seconds are each solver's own (ours: snap-train's, upload
included; IBM: fit()).

  python3 side_by_side.py BIN_DIR TRAIN.snap TEST.snap THREADS OUT_JSONL [PEERS]

PEERS: comma list of ours-gpu, ibm-gpu, ours-cpu, ibm-cpu (default all).
"""
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "criteo"))
from snapfile import read_snap  # noqa: E402  (bench/criteo/snapfile.py)

C = 0.1
OURS_GPU_TOLS = os.environ.get("OURS_GPU_TOLS", "1e-2,1e-3,1e-4,1e-6").split(",")
EPOCHS = {"ibm-gpu": [16, 64], "ibm-cpu": [16, 32], "ours-cpu": [16, 32]}
BUDGET_S = float(os.environ.get("BUDGET_S", "45"))  # per peer


def logloss(y, p):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def ours(bin_dir, train, test, threads, gpu, stop, out):
    stopping = ["--gpu", "-s", "0", "-e", stop] if gpu else ["-s", "7", "-e", "1e-9", "--max-iter", str(stop)]
    cmd = [os.path.join(bin_dir, "snap-train"), *stopping, "-c", str(C), "-B", "1", "-n", str(threads),
           "--test", test, train, out + ".model"]
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - start
    text = r.stdout + r.stderr
    if r.returncode != 0:
        return {"error": text.strip()[-400:], "wall": wall}
    ll = re.search(r"Test log loss = (\S+)", text)
    fit = re.search(r", ([\d.e+-]+) s; model saved", text)
    gap = re.search(r"relative duality gap (\S+)", text)
    its = re.search(r"(\d+) epochs?", text)
    return {"wall": wall, "fit": float(fit.group(1)) if fit else None, "logloss": float(ll.group(1)) if ll else None,
            "gap": gap.group(1) if gap else None, "iterations": int(its.group(1)) if its else None}


def ibm(X, y, Xt, yt, threads, gpu, epochs):
    from snapml import LogisticRegression
    kw = dict(regularizer=1.0 / C, fit_intercept=True, intercept_scaling=1.0, dual=True, max_iter=epochs, tol=1e-9,
              n_jobs=threads)
    if gpu:
        kw.update(use_gpu=True, device_ids=[0])
    model = LogisticRegression(**kw)
    start = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - start
    p = model.predict_proba(Xt)[:, list(model.classes_).index(1.0)]
    return {"fit": fit, "wall": fit, "logloss": logloss(yt, p), "iterations": epochs}


def main():
    bin_dir, train, test, threads, out_path = sys.argv[1:6]
    peers = (sys.argv[6] if len(sys.argv) > 6 else "ours-gpu,ibm-gpu,ours-cpu,ibm-cpu").split(",")
    threads = int(threads)
    data = None
    rows = []
    with open(out_path, "a") as out:
        for peer in peers:
            if peer.startswith("ibm") and data is None:
                t0 = time.perf_counter()
                data = read_snap(train) + read_snap(test)
                print(f"read .snap for IBM: {time.perf_counter() - t0:.1f} s, {data[0].shape}, nnz {data[0].nnz}",
                      flush=True)
                try:  # warm-up: the GPU context and the library's load stay out of the timings
                    ibm(data[0][:2000], data[1][:2000], data[2][:10], data[3][:10], threads, True, 1)
                except Exception as e:  # noqa: BLE001
                    print(f"IBM warm-up failed: {e}", flush=True)
            spent = 0.0
            ladder = OURS_GPU_TOLS if peer == "ours-gpu" else EPOCHS[peer]
            for stop in ladder:
                try:
                    if peer.startswith("ours"):
                        r = ours(bin_dir, train, test, threads, peer == "ours-gpu", stop,
                                 os.path.join(os.path.dirname(out_path), peer))
                    else:
                        r = ibm(*data, threads, peer == "ibm-gpu", stop)
                except Exception as e:  # noqa: BLE001
                    r = {"error": repr(e)[-400:]}
                r.update(peer=peer, stop=stop, threads=threads, rows=os.path.basename(train))
                out.write(json.dumps(r) + "\n")
                out.flush()
                print(json.dumps(r), flush=True)
                rows.append(r)
                if "error" in r:
                    break
                spent += r.get("wall") or 0
                if spent > BUDGET_S:
                    break
    print("\n| peer | tol or epochs | iterations | fit s | test log loss | gap |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['peer']} | {r['stop']} | error: {r['error'][:160]} | | | |")
        else:
            fit = r.get("fit")
            print(f"| {r['peer']} | {r['stop']} | {r.get('iterations')} | {fit if fit is None else round(fit, 3)} | "
                  f"{r['logloss']} | {r.get('gap') or ''} |")


if __name__ == "__main__":
    main()
