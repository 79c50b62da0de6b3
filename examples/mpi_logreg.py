"""Distributed logistic regression from Python: `mpirun -n K python examples/mpi_logreg.py`.

Every rank reads a9a, keeps its own slice of the rows and calls fit(X_rank, y_rank);
the estimator (distributed="auto") sees the MPI launcher and trains as one CoCoA+
rank, so every rank ends with the model of one fit on all rows. Rank 0 prints the
accuracy on a9a.t and the length of the training history. Run without mpirun it
fits all rows in one process. Data: a9a and a9a.t in $SNAPML_DATA_DIR, else
../shared/datasets next to the repository (docs/distributed.md, "Python").
With --snap PATH every rank instead fits the same `.snap` file and reads only its
share of the chunks (streamed from disk when it exceeds --max-memory).

    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \\
        mpirun -n 2 --oversubscribe python examples/mpi_logreg.py
"""

import argparse
import os
import pathlib

import numpy as np

import snap_ml
from snap_ml import LogisticRegression
from snap_ml.datasets import load_svmlight_file

REPO = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("SNAPML_DATA_DIR", REPO.parent / "shared" / "datasets"))
    parser.add_argument("-C", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--max-iter", type=int, default=3000)
    parser.add_argument("--out", help="rank 0 saves coef, intercept, final primal and test predictions (.npz)")
    parser.add_argument("--snap", help="fit this .snap file (a9a's rows) instead of a slice of the arrays")
    parser.add_argument("--max-memory", help="host memory budget per rank for --snap (bytes or 1MB, 4GB)")
    args = parser.parse_args()

    rank, size = snap_ml.mpi_world()  # (0, 1) without an MPI launcher
    data_dir = pathlib.Path(args.data_dir)
    # n_features: a9a.t's largest index is 122, a9a's 123; read both 123 wide.
    X, y = load_svmlight_file(str(data_dir / "a9a"), n_features=123)
    n = X.shape[0]
    rows = slice(rank * n // size, (rank + 1) * n // size)  # this rank's rows
    model = LogisticRegression(C=args.C, tol=args.tol, max_iter=args.max_iter, random_state=0,
                               max_memory=args.max_memory)
    if args.snap:
        model.fit(args.snap)  # each rank reads its own share of the file's chunks
    else:
        model.fit(X[rows], y[rows])

    if rank == 0:
        X_test, y_test = load_svmlight_file(str(data_dir / "a9a.t"), n_features=123)
        predictions = model.predict(X_test)
        accuracy = 100.0 * float(np.mean(predictions == y_test))
        history = model.training_history_[0]
        print(f"ranks {size}: rows on rank 0 {rows.stop - rows.start} of {n}; "
              f"a9a.t accuracy {accuracy:.2f}%; training history length {len(history['epoch'])}; "
              f"final primal {history['primal'][-1]:.6f} gap {history['gap'][-1]:.3g}", flush=True)
        if args.out:
            np.savez(args.out, coef=model.coef_, intercept=model.intercept_, primal=history["primal"][-1],
                     accuracy=accuracy, predictions=predictions, ranks=size)


if __name__ == "__main__":
    main()
