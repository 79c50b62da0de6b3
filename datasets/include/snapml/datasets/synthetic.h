// Synthetic sparse datasets with a planted linear model, for tests, benchmarks
// and the quick start (no large real dataset is available offline).
//
// Each row has `nnz_per_row` distinct features drawn uniformly (sorted), values
// drawn uniformly in (0, 1]; a hidden weight vector w* ~ N(0, 1), centred (its
// mean subtracted, so that the positive values do not shift every margin and the
// classes stay balanced), gives the margin m = w*.x / sqrt(nnz_per_row). Binary
// labels are +1 with probability sigmoid(margin_scale * m) (else -1); regression
// targets are m + noise * N(0, 1). Deterministic per seed, independent of the
// thread count. Holds w* in memory (8 bytes per feature).
#pragma once

#include <cstdint>

#include "snapml/dataset.h"

namespace snapml::datasets {

enum class SyntheticTask { Binary, Regression };

struct SyntheticOptions {
  std::int64_t rows = 1000;
  std::int32_t features = 100;
  std::int32_t nnz_per_row = 10;
  std::uint64_t seed = 1;
  SyntheticTask task = SyntheticTask::Binary;
  double margin_scale = 4.0;  // Binary: larger is more separable
  double noise = 0.1;         // Regression: standard deviation of the noise
  std::int64_t chunk_rows = 1 << 16;
  int threads = 0;  // 0: all threads OpenMP offers; the data does not depend on it
};

Dataset make_synthetic(const SyntheticOptions& options);

}  // namespace snapml::datasets
