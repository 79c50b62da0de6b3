// What the CPU SDCA solver's tests share (test_sdca_cpu_*.cpp): one fit in one
// process, the tight parameters the reference comparisons use, and the check of
// the certificate's invariant w = w(alpha).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../fixtures/fit_once.h"
#include "snapml/dataset.h"
#include "snapml/solver.h"

namespace snapml::testing::sdca_cpu {

inline Fit fit(const Dataset& data, const SolverParameters& parameters, SolverState start = {}) {
  return fit_once(*make_sdca_cpu_solver(parameters), data, std::move(start));
}

inline SolverParameters tight(LossKind loss) {
  SolverParameters p;
  p.loss = loss;
  p.C = 1.5;
  p.intercept_scaling = 1.0;
  p.tol = 1e-10;
  p.max_epochs = 100000;
  p.threads = 1;
  p.seed = 42;
  return p;
}

// w = sum_i alpha_i y_i x_i (the intercept's column included): the certificate's
// invariant, which every way of sharing w between threads must restore by the
// end of a round.
inline void expect_weights_of_alpha(const Dataset& data, const SolverParameters& p, const Fit& fitted,
                             const std::string& what) {
  std::vector<double> w(fitted.state.weights.size(), 0.0);
  std::int64_t i = 0;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView x = data.view(c);
    for (std::int64_t r = 0; r < x.n_rows; ++r, ++i) {
      const double y = p.loss == LossKind::Squared ? 1.0 : x.labels[r];
      const double scale = fitted.state.alpha[static_cast<std::size_t>(i)] * y;
      for (std::int64_t k = x.row_begin(r); k < x.row_end(r); ++k)
        w[static_cast<std::size_t>(x.col_indices[k])] += scale * x.values[k];
      w.back() += scale * p.intercept_scaling;
    }
  }
  for (std::size_t j = 0; j < w.size(); ++j)
    ASSERT_NEAR(fitted.state.weights[j], w[j], 1e-9 * (1.0 + std::fabs(w[j]))) << what << " j=" << j;
}

}  // namespace snapml::testing::sdca_cpu
