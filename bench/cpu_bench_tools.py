"""Runners and measures shared by bench/cpu_bench.py: one fit of each tool, its model
read back as a weight vector, and the primal objective computed here from that vector.

Every tool solves  P(w) = sum_i C loss(y_i, w.x_i) + 0.5 ||w||^2  without an intercept
(`-B -1`, `fit_intercept=False`), y_i = +1 for the larger of two labels.

- CLIs (snap-train, liblinear-train) are timed as whole commands: process start,
  parsing the svmlight file, training and writing the model. Both write LIBLINEAR's
  model format (`--model-format liblinear` for ours), read back by read_liblinear_model.
- Python peers (scikit-learn, IBM snapml) are timed as load_svmlight_file's time (measured
  once per dataset by the caller) plus fit(). Small data: fitted in this process.
  news20: fitted in a child process (`cpu_bench.py --worker`) that can be stopped at a
  time limit.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time
import warnings

import numpy as np

LOSSES = {"logistic": 7, "hinge": 3, "squared_hinge": 1}  # LIBLINEAR's -s of each


def primal(w, X, y, loss, C=1.0):
    """P(w) in float64 from the original data; y in {-1, +1}."""
    w = fit_length(w, X.shape[1])
    m = y * (X @ w)
    if loss == "logistic":
        terms = np.logaddexp(0.0, -m)
    elif loss == "hinge":
        terms = np.maximum(0.0, 1.0 - m)
    else:
        terms = np.maximum(0.0, 1.0 - m) ** 2
    return float(C * terms.sum() + 0.5 * w @ w)


def fit_length(w, n):
    """A model trained on a file whose highest feature is below n predicts with zeros there."""
    w = np.asarray(w, dtype=np.float64)
    if w.shape[0] >= n:
        return w[:n]
    return np.concatenate([w, np.zeros(n - w.shape[0])])


def read_liblinear_model(path):
    """(labels, W) from LIBLINEAR's text model format; W is n_features x nr_w."""
    header = {}
    with open(path) as f:
        for line in f:
            if line.strip() == "w":
                break
            key, _, value = line.strip().partition(" ")
            header[key] = value
        W = np.loadtxt(f, ndmin=2)
    labels = [float(v) for v in header["label"].split()]
    if float(header.get("bias", "-1")) >= 0:
        raise ValueError("the benchmark trains without bias (-B -1)")
    return labels, W


def binary_weights(path):
    """The weight vector of the larger label from a two-class LIBLINEAR-format model:
    the model's w separates labels[0] (positive decision) from labels[1]."""
    labels, W = read_liblinear_model(path)
    w = W[:, 0]
    return w if labels[0] > labels[1] else -w


def multiclass_accuracy(path, X, y):
    labels, W = read_liblinear_model(path)
    W = np.vstack([W, np.zeros((max(0, X.shape[1] - W.shape[0]), W.shape[1]))])[: X.shape[1]]
    pred = np.asarray(labels)[np.argmax(X @ W, axis=1)]
    return float(np.mean(pred == y))


def binary_accuracy(w, X, y):
    return float(np.mean(np.where(X @ fit_length(w, X.shape[1]) > 0, 1.0, -1.0) == y))


def run_cli(command, env=None):
    """Wall seconds of a whole command and its stdout; raises on failure. The command's CPU
    seconds (user + system, all threads) are kept in run_cli.cpu_seconds: on a shared
    machine CPU / wall says how many cores the command actually got."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    run_cli.cpu_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return seconds, done.stdout


def ours_command(exe, loss, tol, threads, train, model, C=1.0, extra=()):
    return [exe, "-s", str(LOSSES[loss]), "-c", str(C), "-e", str(tol), "-B", "-1", "-n", str(threads),
            "--model-format", "liblinear", *extra, train, model]


def liblinear_command(exe, loss, tol, train, model, C=1.0):
    return [exe, "-s", str(LOSSES[loss]), "-c", str(C), "-e", str(tol), "-B", "-1", "-q", train, model]


# --- Python peers -----------------------------------------------------------------

def python_estimator(peer, loss, tol, threads, C=1.0, multiclass=False):
    """The estimator a peer name stands for. scikit-learn's solvers are single-threaded
    on one problem; one-vs-rest (multiclass) runs its problems in `threads` processes."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    if peer == "ibm-snapml":
        import snapml
        if loss == "logistic":
            return snapml.LogisticRegression(regularizer=1.0 / C, fit_intercept=False, dual=True, tol=tol,
                                             max_iter=1000, n_jobs=threads)
        return snapml.SupportVectorMachine(loss=loss, regularizer=1.0 / C, fit_intercept=False, tol=tol,
                                           max_iter=1000, n_jobs=threads)
    if peer == "sklearn-linearsvc":
        est = LinearSVC(loss=loss, dual=True, C=C, fit_intercept=False, tol=tol, max_iter=1000)
    else:
        solver = peer.split("-", 1)[1]  # liblinear, lbfgs, saga
        max_iter = {"liblinear": 1000, "lbfgs": 10000, "saga": 1000}[solver]
        est = LogisticRegression(solver=solver, C=C, fit_intercept=False, tol=tol, max_iter=max_iter,
                                 random_state=0)
    return OneVsRestClassifier(est, n_jobs=threads) if multiclass else est


def peer_threads(peer, threads):
    """Threads a peer uses on one binary problem."""
    return threads if peer == "ibm-snapml" else 1


def fit_python(peer, loss, tol, threads, X, y):
    """Fit seconds and the weight vector of the larger label (y in {-1, +1})."""
    model = python_estimator(peer, loss, tol, peer_threads(peer, threads))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings are expected at loose tolerances
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        w = np.asarray(model.coef_, dtype=np.float64).ravel()
        # Orient w to the larger label whatever the library's class order is.
        rows = slice(0, min(2000, X.shape[0]))
        pred = model.predict(X[rows])
    sign = np.where(X[rows] @ w > 0, 1.0, -1.0)
    if np.mean(sign == pred) < np.mean(-sign == pred):
        w = -w
    return seconds, w


def load_svmlight(path, n_features=None):
    from sklearn.datasets import load_svmlight_file
    start = time.perf_counter()
    X, y = load_svmlight_file(str(path), n_features=n_features, dtype=np.float64)
    X.indices = X.indices.astype(np.int32)  # scikit-learn's liblinear refuses 64-bit indices
    X.indptr = X.indptr.astype(np.int32)
    return time.perf_counter() - start, X, y


def worker_main(argv):
    """`cpu_bench.py --worker PEER TOL THREADS DATA`: load, fit one-vs-rest (C = 1, logistic),
    print a JSON line with the load and fit seconds and the training accuracy."""
    peer, tol, threads, data = argv[0], float(argv[1]), int(argv[2]), argv[3]
    load_seconds, X, y = load_svmlight(data)
    model = python_estimator(peer, "logistic", tol, threads, multiclass=peer != "ibm-snapml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(X, y)
        fit_seconds = time.perf_counter() - start
    print(json.dumps({"load": load_seconds, "fit": fit_seconds,
                      "train_accuracy": float(np.mean(model.predict(X) == y))}), flush=True)


def run_worker(script, peer, tol, threads, data, limit):
    """Runs a worker in its own process group; stops the whole group at `limit` seconds.
    Returns the worker's JSON, or None at the limit."""
    command = [sys.executable, script, "--worker", peer, str(tol), str(threads), str(data)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    if proc.returncode != 0:
        raise RuntimeError(f"worker {peer} tol {tol} exited {proc.returncode}: {err.strip()[-400:]}")
    return json.loads(out.strip().splitlines()[-1])
