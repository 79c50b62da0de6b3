// Random Fourier features (snapml/random_features.h): a sparse-times-dense
// product, a cosine per entry. Each row is one task: its D projections start at
// the offsets and take, entry by entry, value * the entry's row of the weights
// (contiguous: the weights are n_features x D), so a row costs nnz * D
// multiply-adds and reads only its entries' rows of the matrix.
#include "snapml/random_features.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../common/omp_threads.h"
#include "snapml/error.h"
#include "snapml/impl/gpu_backend.h"

namespace snapml {

namespace {

void check_rows(const CsrView& rows, const RandomFourierMap& map) {
  map.check();
  require(rows.n_features <= map.n_features, [&] {
    return "random Fourier features: the rows have " + std::to_string(rows.n_features) +
           " features, the map was drawn for " + std::to_string(map.n_features);
  });
}

}  // namespace

void RandomFourierMap::check() const {
  require(n_features >= 0 && n_components >= 1,
          "random Fourier features: n_components must be >= 1, got " + std::to_string(n_components));
  require(weights.size() == static_cast<std::size_t>(n_features) * static_cast<std::size_t>(n_components),
          "random Fourier features: the weights hold " + std::to_string(weights.size()) + " numbers, not " +
              std::to_string(n_features) + " x " + std::to_string(n_components));
  require(offsets.size() == static_cast<std::size_t>(n_components),
          "random Fourier features: " + std::to_string(offsets.size()) + " offsets for " +
              std::to_string(n_components) + " components");
  const auto finite = [](double v) { return std::isfinite(v); };
  require(std::all_of(weights.begin(), weights.end(), finite) && std::all_of(offsets.begin(), offsets.end(), finite),
          "random Fourier features: the weights and offsets must be finite");
}

void random_fourier_features(const CsrView& rows, const RandomFourierMap& map, float* out, int threads) {
  check_rows(rows, map);
  const auto D = static_cast<std::int64_t>(map.n_components);
  const double scale = map.scale();
  const double* weights = map.weights.data();
  const double* offsets = map.offsets.data();
  [[maybe_unused]] const int team = detail::resolve_threads(threads);
SNAPML_OMP(parallel num_threads(team))
  {
    std::vector<double> projection(static_cast<std::size_t>(D));
SNAPML_OMP(for schedule(dynamic, 1))
    for (std::int64_t block = 0; block < detail::row_blocks(rows.n_rows); ++block) {
      const std::int64_t last = std::min(rows.n_rows, (block + 1) * detail::kRowBlock);
      for (std::int64_t row = block * detail::kRowBlock; row < last; ++row) {
        std::copy_n(offsets, D, projection.data());
        for (std::int64_t k = rows.row_begin(row); k < rows.row_end(row); ++k) {
          const double value = rows.values[k];
          const double* w = weights + static_cast<std::int64_t>(rows.col_indices[k]) * D;
          for (std::int64_t j = 0; j < D; ++j) projection[static_cast<std::size_t>(j)] += value * w[j];
        }
        float* z = out + row * D;
        for (std::int64_t j = 0; j < D; ++j) z[j] = fourier_feature(projection[static_cast<std::size_t>(j)], scale);
      }
    }
  }
}

void random_fourier_features_gpu(const CsrView& rows, const RandomFourierMap& map, float* out, int device_id) {
  check_rows(rows, map);
  const GpuBackend& backend = gpu_backend();
  if (backend.random_features == nullptr)
    throw Unsupported("snapml's GPU backend has no random Fourier features (a plugin of another version)");
  backend.random_features(rows, map, out, device_id);
}

}  // namespace snapml
