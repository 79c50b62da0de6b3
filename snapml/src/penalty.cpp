#include "snapml/penalty.h"

#include "snapml/error.h"

namespace snapml {

const char* penalty_name(Penalty penalty) { return penalty == Penalty::L1 ? "l1" : "l2"; }

Penalty penalty_from_name(const std::string& name) {
  for (Penalty p : {Penalty::L2, Penalty::L1})
    if (name == penalty_name(p)) return p;
  throw InvalidArgument("unknown penalty '" + name + "': use l2 or l1");
}

}  // namespace snapml
