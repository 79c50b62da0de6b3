"""Fits one Python peer once and prints a JSON line: seconds, logloss, auc.

Run as a subprocess by peers.py, so that a peer that crashes or runs past its time
limit cannot take the harness down, and its memory is returned after each fit.

    peer_worker.py PEER BUDGET TRAIN.snap TEST.snap C THREADS
"""
import json
import sys
import time
import warnings

import numpy as np
from sklearn.metrics import log_loss, roc_auc_score

from snapfile import read_snap


def as_int32(X):
    """scikit-learn's liblinear refuses 64-bit CSR indices."""
    X.indptr = X.indptr.astype(np.int32)
    return X


def make(peer, budget, C, n, threads):
    if peer == "sklearn-sgd":
        from sklearn.linear_model import SGDClassifier
        return SGDClassifier(loss="log_loss", alpha=1.0 / (C * n), max_iter=int(budget), tol=None, random_state=0)
    if peer == "sklearn-saga":
        from sklearn.linear_model import LogisticRegression
        return LogisticRegression(solver="saga", C=C, max_iter=int(budget), tol=1e-8, random_state=0)
    if peer == "sklearn-liblinear":
        from sklearn.linear_model import LogisticRegression
        return LogisticRegression(solver="liblinear", C=C, tol=float(budget), max_iter=1000, intercept_scaling=1.0)
    if peer == "ibm-snapml":
        from snapml import LogisticRegression
        return LogisticRegression(regularizer=1.0 / C, fit_intercept=True, intercept_scaling=1.0, dual=True,
                                  max_iter=int(budget), tol=1e-8, n_jobs=threads)
    raise SystemExit(f"unknown peer {peer}")


def main():
    peer, budget, train, test, C, threads = sys.argv[1:7]
    X, y = read_snap(train)
    Xt, yt = read_snap(test)
    if peer == "sklearn-liblinear":
        X, Xt = as_int32(X), as_int32(Xt)
    model = make(peer, budget, float(C), X.shape[0], int(threads))
    warnings.simplefilter("ignore")  # convergence warnings are the point of a small budget
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    p = model.predict_proba(Xt)[:, list(model.classes_).index(1.0)]
    p = np.clip(p, 1e-15, 1 - 1e-15)
    print(json.dumps({"seconds": seconds, "logloss": log_loss(yt, p, labels=[0.0, 1.0]),
                      "auc": roc_auc_score(yt, p)}))


if __name__ == "__main__":
    main()
