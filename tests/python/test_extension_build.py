"""How snap_ml._core was built. pybind11 before 2.12 does not know NumPy 2's
array layout and reads its arrays wrong without an error (a _core built against
Debian's pybind11-dev 2.10 returned three equal multinomial intercepts on iris);
python/CMakeLists.txt refuses such a pybind11 and module.cpp will not compile
with one. This checks the module at hand, whoever built it."""

import numpy as np

from snap_ml import _core


def test_pybind11_reads_this_numpys_arrays():
    numpy_major = int(np.__version__.split(".")[0])
    assert len(_core.pybind11_version) == 2
    if numpy_major >= 2:
        assert tuple(_core.pybind11_version) >= (2, 12), _core.pybind11_version
