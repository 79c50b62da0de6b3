"""The seed's Snap ML example on a GPU, as a user writes it: change the import, add
device_ids. snap_ml against IBM snapml and scikit-learn on a9a -> a9a.t; the GPU fits
must give the CPU's log loss (issue: GPU fits are never wrong). Prints a table.

  python3 python_seed.py DATA_DIR
"""
import sys
import time
import traceback

from sklearn.datasets import load_svmlight_file
from sklearn.metrics import accuracy_score, log_loss

d = sys.argv[1]
X, y = load_svmlight_file(f"{d}/a9a", n_features=123)
Xt, yt = load_svmlight_file(f"{d}/a9a.t", n_features=123)


def run(label, make, data=(X, y, Xt, yt)):
    X_, y_, Xt_, yt_ = data
    try:
        model = make()
        start = time.perf_counter()
        model.fit(X_, y_)
        seconds = time.perf_counter() - start
        p = model.predict_proba(Xt_)
        print(f"| {label} | {seconds:.3f} | {log_loss(yt_, p):.5f} | "
              f"{100 * accuracy_score(yt_, model.predict(Xt_)):.2f} |", flush=True)
    except Exception:  # noqa: BLE001
        print(f"| {label} | error: {traceback.format_exc().strip().splitlines()[-1][:300]} | | |", flush=True)


print("| fit | seconds | test log loss | accuracy % |\n|---|---|---|---|")
from sklearn.linear_model import LogisticRegression as ScikitLogisticRegression  # noqa: E402

run("scikit-learn LogisticRegression(max_iter=1000)", lambda: ScikitLogisticRegression(max_iter=1000))
try:
    import snap_ml
    from snap_ml import LinearSVC, LogisticRegression

    run("snap_ml LogisticRegression() CPU", lambda: LogisticRegression())
    run("snap_ml LogisticRegression(device_ids=[0]) (first: context)", lambda: LogisticRegression(device_ids=[0]))
    run("snap_ml LogisticRegression(device_ids=[0])", lambda: LogisticRegression(device_ids=[0]))
    run("snap_ml LogisticRegression(device_ids=[0, 0])", lambda: LogisticRegression(device_ids=[0, 0]))
    run("snap_ml LogisticRegression(use_gpu=True, solver='liblinear', dual=True)",
        lambda: LogisticRegression(use_gpu=True, solver="liblinear", dual=True))
    run("snap_ml LogisticRegression(use_gpu=True) 3 classes (mushrooms x a9a labels: multinomial)",
        lambda: LogisticRegression(use_gpu=True), data=(X, (y > 0) + (X[:, 0].toarray().ravel() > 0),
                                                          Xt, (yt > 0) + (Xt[:, 0].toarray().ravel() > 0)))
    run("snap_ml LinearSVC(use_gpu=True) (hinge: refused, names the CPU)", lambda: LinearSVC(loss="hinge", use_gpu=True))
    print(f"snap_ml from {snap_ml.__file__}")
except Exception:  # noqa: BLE001
    print("snap_ml failed:", traceback.format_exc()[-800:])
try:
    import snapml

    run("IBM snapml LogisticRegression(use_gpu=True) (first)", lambda: snapml.LogisticRegression(use_gpu=True, device_ids=[0]))
    run("IBM snapml LogisticRegression(use_gpu=True)", lambda: snapml.LogisticRegression(use_gpu=True, device_ids=[0]))
    run("IBM snapml LogisticRegression() CPU", lambda: snapml.LogisticRegression())
except Exception:  # noqa: BLE001
    print("IBM snapml failed:", traceback.format_exc()[-800:])
