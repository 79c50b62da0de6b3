"""bench/dual_parallel_eso.py: the ESO factor of T concurrent dual steps is 1 for
orthogonal rows and T for identical ones, whatever the rows' norms."""
import importlib.util

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import REPO


def load_bench():
    spec = importlib.util.spec_from_file_location("dual_parallel_eso", REPO / "bench" / "dual_parallel_eso.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("threads", [1, 4, 16])
def test_orthogonal_rows_need_no_shortening_and_identical_rows_t_fold(threads):
    eso = load_bench()
    n = 50
    orthogonal = sp.diags(np.linspace(1.0, 9.0, n)).tocsr()  # norms differ: the factor does not see them
    Xn = eso.unit_rows(orthogonal)
    assert eso.eso_factor(eso.largest_gram_eigenvalue(Xn), n, threads) == pytest.approx(1.0)
    identical = sp.csr_matrix(np.outer(np.linspace(1.0, 3.0, n), [0.0, 2.0, 0.0, 5.0]))
    Xn = eso.unit_rows(identical)
    assert eso.eso_factor(eso.largest_gram_eigenvalue(Xn), n, threads) == pytest.approx(threads)


def test_the_intercept_column_is_shared_by_every_row():
    eso = load_bench()
    n = 40
    # Each row: its own column and the intercept.
    Xn = eso.unit_rows(eso.with_intercept(sp.identity(n, format="csr"), 1.0))
    # Gram = (I + 1 1^T) / 2: lambda_max = (1 + n) / 2.
    assert eso.largest_gram_eigenvalue(Xn) == pytest.approx((1.0 + n) / 2.0, rel=1e-6)


@pytest.mark.parametrize("threads", [2, 8])
def test_the_jacobi_factor_counts_what_the_steps_curvature_leaves(threads):
    eso = load_bench()
    n, C = 30, 2.0
    alpha = np.full(n, C / 2)  # the dual's curvature C / (a (C - a)) = 4 / C there
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)  # signs: the Gram of y_i x_i
    identical = sp.csr_matrix(np.tile([[0.0, 3.0, 4.0]], (n, 1)))  # ||x||^2 = 25
    share = 25.0 / (25.0 + 4.0 / C)
    assert eso.jacobi_factor(identical, y, alpha, C, threads, blocks=20) == pytest.approx(threads * share)
    orthogonal = sp.diags(np.full(n, 5.0)).tocsr()  # each row alone: no block couples
    assert eso.jacobi_factor(orthogonal, y, alpha, C, threads, blocks=20) == pytest.approx(share)
