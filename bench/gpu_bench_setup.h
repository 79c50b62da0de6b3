// What the GPU benchmarks share besides timing (gpu_timing.h): their "--flag value"
// command lines, the generated problem they train on, and the solver settings
// that run every epoch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "snapml/dataset.h"
#include "snapml/datasets/synthetic.h"
#include "snapml/error.h"
#include "snapml/losses/dispatch.h"
#include "snapml/solver.h"

namespace snapml::bench {

// Calls set(flag, value) for every "--flag value" pair; set returns false for a
// flag it does not know, which throws InvalidArgument, as a missing value does.
template <typename Set>
void parse_flags(int argc, char** argv, Set set) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw InvalidArgument("missing value after " + flag);
    const std::string value = argv[++i];
    if (!set(flag, value)) throw InvalidArgument("unknown option " + flag);
  }
}

// A generated sparse problem of about nnz non-zeros, mean_row_nnz a row, binary
// labels (regression targets for the squared loss), cut into chunk_rows chunks.
inline Dataset generated_problem(std::int64_t nnz, std::int32_t features, int mean_row_nnz, LossKind loss,
                                 std::int64_t chunk_rows) {
  datasets::SyntheticOptions synthetic;
  synthetic.rows = std::max<std::int64_t>(1, nnz / mean_row_nnz);
  synthetic.features = features;
  synthetic.nnz_per_row = mean_row_nnz;
  synthetic.task = loss == LossKind::Squared ? datasets::SyntheticTask::Regression : datasets::SyntheticTask::Binary;
  synthetic.chunk_rows = chunk_rows;
  return datasets::make_synthetic(synthetic);
}

// Solver settings that run all `epochs` (tolerance out of reach), with an intercept.
inline SolverParameters every_epoch(LossKind loss, int epochs, int threads = 1) {
  SolverParameters p;
  p.loss = loss;
  p.intercept_scaling = 1.0;
  p.tol = 1e-12;
  p.max_epochs = epochs;
  p.threads = threads;
  p.seed = 3;
  return p;
}

}  // namespace snapml::bench
