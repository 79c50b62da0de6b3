// The certificate of a warm start that carries both weights and a dual point, the
// pair a dual fit returns (solver.h's SolverState), taken before any epoch.
//
// A fit whose epoch is no fixed point at the optimum cannot rely on its first
// certificate to find a resumed optimum optimal: the GPU dual solver's smoothed
// hinge starts over at its largest smoothing and its hot weights at w_H(alpha)
// (cuda/src/dual/hybrid_backend.h), and on the H100 a resumed optimum took 4 to
// 1,348 epochs (device run of 2026-11-27). Nor does alpha alone certify it: the
// returned alpha is the best certificate's dual point, paired with the returned
// weights, not with w(alpha) (a9a's logistic optimum: P(w) - D(alpha) = 5.9, but
// P(w(alpha)) - D(alpha) = 5,988). By weak duality P(w) - D(alpha) bounds
// P(w) - P* for any w and feasible alpha, D(alpha) with w(alpha); where it meets
// tol, the start is the answer and the fit need not take a step.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml {

// P(state.weights) and D(state.alpha) over every rank's rows (two host passes over
// `source`, in double, on `threads` threads); nullopt unless every rank's state has
// both (alpha one per row of its source, weights n_features + 1) and every alpha is
// feasible for `parameters` (within its loss's interval at the row's cost: a state
// from another C need not be). Penalty L2 with the intercept penalised, as the dual
// solvers train.
std::optional<Objectives> certify_warm_pair(ChunkSource& source, Communicator& communicator,
                                            const SolverParameters& parameters, std::int32_t n_features,
                                            const SolverState& state, int threads);

// The fit of a start that certify_warm_pair finds within parameters.tol: no epoch,
// converged, its one record the pair's certificate, `state` left as it is.
// nullopt otherwise (the fit then trains from the start as usual).
std::optional<FitResult> resumed_optimum(ChunkSource& source, Communicator& communicator,
                                         const SolverParameters& parameters, std::int32_t n_features,
                                         const SolverState& state, int threads,
                                         std::chrono::steady_clock::time_point started);

}  // namespace snapml
