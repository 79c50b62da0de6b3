// One fit of a solver on an in-memory dataset in one process: what the solver
// tests compare against their references.
#pragma once

#include <utility>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/dataset.h"
#include "snapml/solver.h"

namespace snapml::testing {

struct Fit {
  FitResult result;
  SolverState state;
};

inline Fit fit_once(Solver& solver, const Dataset& data, SolverState start = {}) {
  InMemorySource source(data);
  LocalCommunicator local;
  Fit out;
  out.state = std::move(start);
  out.result = solver.fit(source, local, out.state);
  return out;
}

}  // namespace snapml::testing
