"""Snap ML's distributed example, as its documentation wrote it: `mpirun -n 4 python my_app.py`.

Every rank loads its own part of a9a and a9a.t, the ranks train one logistic
regression together and each prints the log loss and accuracy of all test rows
(tests/python/test_snap_ml_mpi.py runs it under `mpirun -n 2` and alone). Data:
$SNAPML_DATA_DIR, else ../shared/datasets next to the repository.

    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \\
        mpirun -n 2 --oversubscribe python examples/snap_ml_mpi_seed.py

device_ids=[0,1,2,3] asks for four GPUs (a ValueError on a machine without them:
remove it to train on the CPU).
"""

import os
import pathlib

from snap_ml_mpi import LogisticRegression
from snap_ml_mpi.Loaders import load_from_libsvm_format
from snap_ml_mpi.Metrics import accuracy_score, log_loss

data_dir = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
data_dir = pathlib.Path(os.environ.get("SNAPML_DATA_DIR", data_dir))

# --- Snap ML's example, unchanged from here ---
train_data = load_from_libsvm_format(str(data_dir / "a9a"))
test_data = load_from_libsvm_format(str(data_dir / "a9a.t"))

lr = LogisticRegression(max_iter=200, dual=True, device_ids=[0, 1, 2, 3], num_threads=128)
lr.fit(train_data)

proba = lr.predict_proba(test_data)
print("log loss: %.8f" % log_loss(test_data, proba))
print("accuracy: %.8f" % accuracy_score(test_data, lr.predict(test_data)))
