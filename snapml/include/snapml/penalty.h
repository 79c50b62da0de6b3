// The regulariser: L2, 0.5 ||w||^2 (the dual solvers), or L1, ||w||_1 (primal
// coordinate descent, snapml/src/cd_l1_cpu.cpp; docs/algorithms.md "L1").
#pragma once

#include <string>

namespace snapml {

enum class Penalty { L2, L1 };

// "l2" / "l1", as scikit-learn spells them.
const char* penalty_name(Penalty penalty);
// Inverse of penalty_name; throws InvalidArgument naming the accepted names.
Penalty penalty_from_name(const std::string& name);

}  // namespace snapml
