"""Nothing silent, nothing hanging under `mpirun -n 2 python ...` (docs/distributed.md,
"Nothing silent"): ranks that disagree on parameters or hold the same rows fail
on every rank with the cause named; joblib workers started by a rank train in
their own process; a rank that raises or exits with an error outside fit ends the
job instead of leaving the other rank waiting. Every run has a timeout: a hang
fails the test. Skips without mpirun or an MPI build (fails under CI=true).
"""

import re
import subprocess
import sys
import textwrap

import pytest

from conftest import dataset_path, mpirun_env
from test_mpi_python import mpirun_of_an_mpi_build

PRELUDE = """
import sys
import numpy as np
from snap_ml import LogisticRegression, mpi_world
from snap_ml.datasets import load_svmlight_file
X, y = load_svmlight_file(sys.argv[1], n_features=13)
rank, size = mpi_world()
"""


def _run(tmp_path, body, *ranks_arguments, timeout=120):
    """Runs PRELUDE + body on one rank per entry of ranks_arguments (an MPMD
    launch, each rank with its own extra arguments); returns (exit code, output)."""
    script = tmp_path / "script.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    # --tag-output keeps each rank's lines whole: untagged, two ranks' writes could
    # meet inside a line under load ('0.844accuracy').
    command = mpirun_of_an_mpi_build()
    command = [command[0], "--tag-output", *command[1:]]
    for i, arguments in enumerate(ranks_arguments):
        if i:
            command.append(":")
        command += ["-n", "1", sys.executable, str(script), str(dataset_path("heart_scale")), *arguments]
    try:
        done = subprocess.run(command, env=mpirun_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"mpirun did not end within {timeout} s: a rank was left waiting\n{hung.stdout}{hung.stderr}")
    return done.returncode, done.stdout + done.stderr


def test_ranks_with_different_C_fail_naming_it(tmp_path):
    code, out = _run(tmp_path, """
        LogisticRegression(C=float(sys.argv[2])).fit(X[rank::size], y[rank::size])
        print("fitted", flush=True)
    """, ["1.0"], ["2.5"])
    assert code != 0, out
    assert "the ranks disagree on the training parameters" in out
    assert "C: rank 0 has 1, rank 1 has 2.5" in out
    assert "fitted" not in out


def test_ranks_that_disagree_raise_a_value_error_every_rank_may_catch(tmp_path):
    # The check is collective, so every rank raises it and none waits: a script's
    # `except ValueError` runs on each (it ended the job with MPI_Abort instead),
    # and the ranks go on to train together.
    code, out = _run(tmp_path, """
        import snap_ml
        try:
            LogisticRegression(tol=float(sys.argv[2])).fit(X[rank::size], y[rank::size])
        except ValueError as e:
            assert isinstance(e, snap_ml.RanksDisagreeError), type(e)
            print(f"rank {rank}: caught {e}", flush=True)
        model = LogisticRegression(tol=1e-4).fit(X[rank::size], y[rank::size])
        print(f"rank {rank}: then fitted together: {model._data_source}", flush=True)
    """, ["1e-3"], ["1e-5"])
    assert code == 0, out
    assert out.count("caught the ranks disagree on the training parameters") == 2, out
    # The core's tol, named as such: LogisticRegression passes tol / 100 (1e-5 / 100
    # is 1.0000000000000001e-07 exactly).
    assert "tol (the core's: LogisticRegression passes tol / 100): rank 0 has 1e-05, rank 1 has 1.0" in out
    assert out.count("then fitted together: distributed") == 2, out


def test_the_same_rows_on_every_rank_are_refused(tmp_path):
    # Every rank holds all the data but asks for one fit over the ranks. Before
    # the check this trained on 2 copies, a fit at C*2, silently.
    code, out = _run(tmp_path, """
        LogisticRegression(distributed=True).fit(X, y)
        print("fitted", flush=True)
    """, [], [])
    assert code != 0, out
    assert "ranks 0 and 1 hold the same 270 rows" in out
    assert "X[rank::size]" in out
    assert "fitted" not in out


def test_the_same_rows_on_every_rank_train_once_per_rank(tmp_path):
    # An unmodified one-process script (distributed="auto"): every rank loads all
    # the data and ends with the one-process model, never with a fit on 2 copies.
    code, out = _run(tmp_path, """
        model = LogisticRegression().fit(X, y)
        alone = LogisticRegression(distributed=False).fit(X, y)
        assert model._data_source == "arrays", model._data_source
        np.testing.assert_array_equal(model.coef_, alone.coef_)
        shared = LogisticRegression().fit(X[rank::size], y[rank::size])
        assert shared._data_source == "distributed", shared._data_source
        print(f"rank {rank}: alone on the same rows, together on shares", flush=True)
    """, [], [])
    assert code == 0, out
    assert "rank 0: alone" in out and "rank 1: alone" in out


def test_shuffled_copies_of_the_rows_are_the_same_rows(tmp_path):
    # Each rank shuffles its copy of all the data with its own order (an unseeded
    # sklearn.utils.shuffle): the same rows, in another order. Compared in order,
    # they passed for shares and trained one fit on 2 copies (the C = 2 model) on
    # every rank, silently; asked to train together, they were not refused.
    code, out = _run(tmp_path, """
        from sklearn.utils import shuffle
        Xs, ys = shuffle(X, y, random_state=rank)
        model = LogisticRegression().fit(Xs, ys)
        alone = LogisticRegression(distributed=False).fit(X, y)
        assert model._data_source == "arrays", model._data_source
        np.testing.assert_allclose(model.coef_, alone.coef_, rtol=1e-3, atol=1e-4)
        print(f"rank {rank}: alone on shuffled rows", flush=True)
        LogisticRegression(distributed=True).fit(Xs, ys)
        print("fitted", flush=True)
    """, [], [])
    assert code != 0, out
    assert "rank 0: alone" in out and "rank 1: alone" in out
    assert "ranks 0 and 1 hold the same 270 rows (equal checksums, in any order)" in out
    assert "fitted" not in out


def test_string_labels_on_one_rank_and_numbers_on_another_are_refused(tmp_path):
    # numpy's union of ["-1", "1"] and [-1.0, 1.0] is four strings: a four-class
    # model, silently, where scikit-learn refuses a mix of label types.
    code, out = _run(tmp_path, """
        labels = y[rank::size].astype(int).astype(str) if rank == 0 else y[rank::size]
        try:
            LogisticRegression().fit(X[rank::size], labels)
            print(f"rank {rank}: fitted", flush=True)
        except ValueError as e:
            print(f"rank {rank}: ValueError {e}", flush=True)
    """, [], [])
    assert code == 0, out
    assert "fitted" not in out
    assert out.count("Mix of label input types (string and number) over the ranks") == 2, out
    assert "rank 0: string labels, rank 1: number labels" in out


def test_joblib_workers_under_mpirun_train_in_their_own_process(tmp_path):
    # The workers inherit mpirun's variables; initialising MPI in them aborted.
    code, out = _run(tmp_path, """
        from sklearn.model_selection import cross_val_score
        scores = cross_val_score(LogisticRegression(), X[rank::size], y[rank::size], cv=3, n_jobs=2)
        from snap_ml._distributed import resolve_distributed
        LogisticRegression().fit(X[rank::size], y[rank::size])  # and the ranks still train together
        print(f"rank {rank}: cv {scores.mean():.3f}, distributed {resolve_distributed('auto')}", flush=True)
    """, [], [])
    assert code == 0, out
    assert "rank 0: cv" in out and "rank 1: cv" in out
    assert out.count("distributed True") == 2


@pytest.mark.parametrize("ending", ["raise RuntimeError('boom on rank 1')", "sys.exit(3)"])
def test_a_rank_failing_outside_fit_ends_the_job(tmp_path, ending):
    # Rank 1 fails after a distributed fit while rank 0 starts another: rank 0
    # waits in a collective, rank 1 used to wait in MPI_Finalize, forever.
    code, out = _run(tmp_path, f"""
        LogisticRegression().fit(X[rank::size], y[rank::size])
        if rank == 1:
            {ending}
        LogisticRegression(C=2.0).fit(X[rank::size], y[rank::size])
    """, [], [], timeout=90)
    assert code != 0, out
    assert "ending every rank (MPI_Abort)" in out
    if "raise" in ending:
        assert "boom on rank 1" in out


def test_a_rank_failing_before_any_fit_ends_the_job(tmp_path):
    code, out = _run(tmp_path, """
        if rank == 1:
            raise RuntimeError("boom before any fit")
        LogisticRegression().fit(X[rank::size], y[rank::size])
    """, [], [], timeout=90)
    assert code != 0, out
    assert "boom before any fit" in out


def test_ranks_given_different_snap_files_fail_naming_them(tmp_path):
    # Issue 36, case 6: each rank read its share of its own file and the ranks
    # trained one mixed model. Refused on every rank, before training, with a
    # ValueError a script can catch.
    code, out = _run(tmp_path, f"""
        from snap_ml.datasets import dump
        path = "{tmp_path}/rank%d.snap" % rank
        dump(X[: 100 + 50 * rank], y[: 100 + 50 * rank], path)
        try:
            LogisticRegression(distributed=True).fit(path)
        except ValueError as e:
            print(f"refused: {{e}}", flush=True)  # one write: the ranks share the output
    """, [], [])
    assert code == 0, out
    assert out.count("refused: the ranks passed different training files") == 2, out
    assert "rank 0: " in out and "rank1.snap" in out, out


def test_ranks_with_different_column_counts_fail_and_an_empty_rank_trains(tmp_path):
    # The narrower rank was zero-padded without a word; a rank with no rows was
    # refused though snap-train allows it.
    code, out = _run(tmp_path, """
        try:
            LogisticRegression(distributed=True).fit(X[rank::size, : 13 - rank], y[rank::size])
        except ValueError as e:
            print(f"refused: {e}", flush=True)  # one write: the ranks share the output
        share = slice(None) if rank == 0 else slice(0, 0)
        model = LogisticRegression(distributed=True).fit(X[share], y[share])
        print("accuracy %.3f" % model.score(X, y), flush=True)
    """, [], [])
    assert code == 0, out
    assert out.count("refused: the ranks' X have different numbers of columns (rank 0: 13, rank 1: 12)") == 2, out
    # Not anchored at a line's end: print() writes the text and its newline apart, and
    # another rank's tagged line can come between them.
    accuracies = [float(value) for value in re.findall(r"accuracy ([0-9]+\.[0-9]+)", out)]
    assert len(accuracies) == 2 and min(accuracies) > 0.8, out


def test_a_checkpoint_under_mpirun_is_a_value_error_not_an_abort(tmp_path):
    # It ended every rank with MPI_Abort from inside the fit.
    code, out = _run(tmp_path, f"""
        try:
            LogisticRegression(distributed=True).fit(X[rank::size], y[rank::size], checkpoint="{tmp_path}/ck")
        except ValueError as e:
            print(f"refused: {{e}}", flush=True)  # one write: the ranks share the output
    """, [], [])
    assert code == 0, out
    assert out.count("refused: checkpoint is not yet available under mpirun (2 ranks)") == 2, out
