// The regulariser: L2, 0.5 ||w||^2 (the dual solvers or the primal Newton
// solver), L1, ||w||_1 (primal coordinate descent, snapml/src/l1/cd_l1_cpu.cpp;
// docs/algorithms.md "L1"), or none (the primal Newton solver only,
// snapml/src/primal/primal_newton_solver.cpp: plain empirical risk, scikit-learn's penalty=None).
#pragma once

#include <string>

namespace snapml {

enum class Penalty { L2, L1, None };

// "l2" / "l1" / "none", as scikit-learn spells them.
const char* penalty_name(Penalty penalty);
// Inverse of penalty_name; throws InvalidArgument naming the accepted names.
Penalty penalty_from_name(const std::string& name);

}  // namespace snapml
