"""The peers of the Criteo benchmark and how each is run at one budget.

A peer is a name, a ladder of increasing budgets (epochs, passes or a tolerance) and a
function that trains once at one budget and returns the test logloss, AUC and the
training time. Every fit runs in its own process with a time limit, so one peer's
failure is recorded, never fatal. Times exclude reading the data except where
`loads_data` says the measured process parses its own text input.

Regularisation, one problem for all: min_w C * sum_i logloss(y_i, w.x_i) + ||w||^2 / 2
  snapml -c C, LIBLINEAR -c C, scikit-learn LogisticRegression(C=C),
  IBM snapml regularizer = 1/C, SGDClassifier alpha = 1/(C n), Vowpal Wabbit --l2 1/(C n)
(n training rows; SGD and VW minimise the mean loss + alpha/2 ||w||^2, the same problem
divided by C n). The intercept is a constant feature of value 1, regularised with the
weights (snapml -B 1, LIBLINEAR -B 1, liblinear and IBM intercept_scaling 1); saga, SGD
and VW fit an unregularised intercept, which at this size makes no measurable difference.
"""
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn.metrics import log_loss, roc_auc_score

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Peer:
    name: str
    budget_kind: str            # what the ladder varies
    ladder: list
    converged: object           # the budget of a fit to convergence (--sample)
    fit: Callable               # (budget) -> {"seconds", "logloss", "auc"}
    threads: str                # the threads it uses, in words
    loads_data: bool = False    # its time includes parsing its input file


def _metrics(y, p):
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-15, 1 - 1e-15)
    return {"logloss": float(log_loss(y, p, labels=[0.0, 1.0])), "auc": float(roc_auc_score(y, p))}


def _run(cmd, timeout, **kw):
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"timed out after {timeout:.0f} s")
    if result.returncode != 0:
        lines = (result.stderr.strip() or result.stdout.strip() or "no output").splitlines()
        raise RuntimeError(f"exit {result.returncode}: {lines[-1] if lines else ''}")
    return result


# The epoch budgets of the two SDCA peers (snapml and IBM snapml): steps of about
# sqrt(2), so that "time to target" lands within ~40 % of the epochs each needs
# (doubling budgets could charge a peer up to twice its epochs).
SDCA_EPOCHS = [1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64]


def snapml_cli(ctx, split):
    def fit(max_iter, timeout):
        cmd = [ctx.tools.train, "-s", "7", "-c", str(ctx.C), "-B", "1", "-n", str(ctx.threads), "-e", str(ctx.tol),
               "--max-iter", str(max_iter), "--test", split.test_snap, split.train_snap,
               os.path.join(ctx.work, "snapml.model")]
        if ctx.gpu:
            cmd.insert(1, "--gpu")
        out = _run(cmd, timeout).stdout
        seconds = re.search(r"epochs?, .*?, ([\d.e+-]+) s; model saved", out)
        ll, auc = re.search(r"Test log loss = (\S+)", out), re.search(r"Test AUC = (\S+)", out)
        if not (seconds and ll and auc):
            raise RuntimeError(f"unexpected snap-train output: {out!r}")
        epochs = re.search(r"snap-train: (\d+) epochs, relative duality gap (\S+)", out)
        return {"seconds": float(seconds.group(1)), "logloss": float(ll.group(1)), "auc": float(auc.group(1)),
                "note": f"{epochs.group(1)} epochs, relative duality gap {epochs.group(2)}"}
    return Peer("snapml (snap-train -s 7" + (" --gpu" if ctx.gpu else "") + ")", "--max-iter epochs",
                SDCA_EPOCHS, 1000, fit, f"{ctx.threads}")


def python_peer(name, label, kind, ladder, converged, threads):
    def make(ctx, split):
        def fit(budget, timeout):
            out = _run([sys.executable, os.path.join(HERE, "peer_worker.py"), name, str(budget), split.train_snap,
                        split.test_snap, str(ctx.C), str(ctx.threads)], timeout).stdout
            return json.loads(out.strip().splitlines()[-1])
        return Peer(label, kind, ladder, converged, fit, threads if threads != "n" else str(ctx.threads))
    return make


def liblinear_cli(ctx, split):
    model, predictions = os.path.join(ctx.work, "liblinear.model"), os.path.join(ctx.work, "liblinear.pred")

    def fit(eps, timeout):
        start = time.perf_counter()
        _run(["liblinear-train", "-q", "-s", "7", "-c", str(ctx.C), "-B", "1", "-e", str(eps), split.train_svm,
              model], timeout)
        seconds = time.perf_counter() - start
        _run(["liblinear-predict", "-q", "-b", "1", split.test_svm, model, predictions], timeout)
        with open(predictions) as f:
            labels = f.readline().split()[1:]
            p = np.loadtxt(f, usecols=1 + labels.index("1"), ndmin=1)
        return {"seconds": seconds, **_metrics(ctx.test_y, p)}
    return Peer("LIBLINEAR (liblinear-train -s 7)", "-e tolerance", [10.0, 3.0, 1.0, 0.3, 0.1, 0.01], 1e-4, fit, "1",
                loads_data=True)


def vowpal_wabbit(ctx, split):
    model, cache, predictions = (os.path.join(ctx.work, n) for n in ("vw.model", "vw.cache", "vw.pred"))
    l2 = 1.0 / (ctx.C * split.train_rows)

    def fit(passes, timeout):
        if os.path.exists(cache):
            os.remove(cache)  # every run parses its text, as its first pass would
        train = (f"import time, vowpalwabbit as v; s = time.perf_counter(); "
                 f"w = v.Workspace('--quiet -d {split.train_vw} -c --cache_file {cache} --passes {passes} "
                 f"--holdout_off --loss_function logistic --l2 {l2:.6g} -b 24 -f {model}'); w.finish(); "
                 f"print(time.perf_counter() - s)")
        seconds = float(_run([sys.executable, "-c", train], timeout).stdout.split()[-1])
        test = (f"import vowpalwabbit as v; w = v.Workspace('--quiet -t -i {model} -d {split.test_vw} "
                f"--link logistic -p {predictions}'); w.finish()")
        _run([sys.executable, "-c", test], timeout)
        p = np.loadtxt(predictions, usecols=0, ndmin=1)
        return {"seconds": seconds, **_metrics(ctx.test_y, p)}
    return Peer("Vowpal Wabbit (--loss_function logistic)", "--passes", [1, 2, 4, 8, 16], 16, fit, "1 (+1 parser)",
                loads_data=True)


# In table order. Each entry: (key, constructor(ctx, split) -> Peer, module that must import).
PEERS = [
    ("snapml", snapml_cli, None),
    ("ibm-snapml", python_peer("ibm-snapml", "IBM snapml LogisticRegression (dual=True)", "max_iter epochs",
                               SDCA_EPOCHS, 1000, "n"), "snapml"),
    ("liblinear", liblinear_cli, None),
    ("sklearn-liblinear", python_peer("sklearn-liblinear", "sklearn LogisticRegression(solver=\"liblinear\")",
                                      "tol", [1.0, 0.1, 0.01, 0.001, 0.0001], 1e-6, "1"), "sklearn"),
    ("sklearn-saga", python_peer("sklearn-saga", "sklearn LogisticRegression(solver=\"saga\")", "max_iter epochs",
                                 [1, 2, 4, 8, 16, 32], 1000, "1"), "sklearn"),
    ("sklearn-sgd", python_peer("sklearn-sgd", "sklearn SGDClassifier(loss=\"log_loss\")", "max_iter epochs",
                                [1, 2, 4, 8, 16], 16, "1"), "sklearn"),
    ("vw", vowpal_wabbit, "vowpalwabbit"),
]


def run_ladder(peer, time_cap, timeout, flat=2e-4, log=print):
    """Fits at each budget of the ladder (each from scratch, each within `timeout`
    seconds) until the fits so far took `time_cap` seconds, or the test logloss is flat
    (changed by at most `flat`, relative: converged), or it got worse twice in a row
    (a stochastic method past its best)."""
    points, spent, worse = [], 0.0, 0
    for budget in peer.ladder:
        try:
            point = peer.fit(budget, timeout)
        except Exception as error:  # recorded, reported, never fatal
            points.append({"budget": budget, "error": str(error)})
            log(f"  {peer.name} @ {budget}: {error}")
            break
        point["budget"] = budget
        points.append(point)
        spent += point["seconds"]
        log(f"  {peer.name} @ {peer.budget_kind} {budget}: {point['seconds']:.2f} s  logloss {point['logloss']:.5f}"
            f"  AUC {point['auc']:.4f}")
        ok = [p for p in points if "logloss" in p]
        if len(ok) >= 2:
            change = ok[-1]["logloss"] - ok[-2]["logloss"]
            worse = worse + 1 if change > 0 else 0
            # An identical logloss is an identical fit (the budget did not bind yet): go on.
            if 0 < abs(change) <= flat * ok[-1]["logloss"] or worse >= 2:
                break
        if spent > time_cap:
            break
    return points
