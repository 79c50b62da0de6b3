// Feature maps computed by the core: random Fourier features of the RBF kernel
// (snapml/random_features.h) over rows given as CsrData, on the CPU or a CUDA
// device, the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>

#include "bindings.h"
#include "data.h"
#include "snapml/error.h"
#include "snapml/random_features.h"

namespace py = pybind11;

namespace snapml::python {

namespace {

// z(x) of every row: a float32 array (n_rows, n_components). `weights` is
// scikit-learn's RBFSampler.random_weights_ (n_features x n_components),
// `offsets` its random_offset_.
py::array_t<float> random_fourier_features(const CsrData& x, const Array<double>& weights,
                                           const Array<double>& offsets, int threads, int device) {
  require(weights.ndim() == 2 && offsets.ndim() == 1,
          "random_fourier_features: weights must be 2-D (n_features, n_components) and offsets 1-D");
  RandomFourierMap map;
  map.n_features = static_cast<std::int32_t>(weights.shape(0));
  map.n_components = static_cast<std::int32_t>(weights.shape(1));
  map.weights.assign(weights.data(), weights.data() + weights.size());
  map.offsets.assign(offsets.data(), offsets.data() + offsets.size());
  const CsrView& rows = x.view();
  py::array_t<float> out({static_cast<py::ssize_t>(rows.n_rows), static_cast<py::ssize_t>(std::max(map.n_components, 0))});
  float* z = out.mutable_data();
  {
    py::gil_scoped_release release;
    if (device >= 0)
      random_fourier_features_gpu(rows, map, z, device);
    else
      random_fourier_features(rows, map, z, threads);
  }
  return out;
}

}  // namespace

void bind_features(py::module_& m) {
  m.def("random_fourier_features", &random_fourier_features, py::arg("x"), py::arg("weights"), py::arg("offsets"),
        py::arg("threads") = 0, py::arg("device") = -1,
        "Random Fourier features sqrt(2/D) cos(x W + b) of CsrData rows (Rahimi & Recht 2007): "
        "float32 (n_rows, D); W, b as scikit-learn's RBFSampler draws them. device >= 0: on that "
        "CUDA device (the GPU backend; Unsupported without it)");
}

}  // namespace snapml::python
