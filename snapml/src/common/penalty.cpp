#include "snapml/penalty.h"

#include "snapml/error.h"

namespace snapml {

const char* penalty_name(Penalty penalty) {
  switch (penalty) {
    case Penalty::L1: return "l1";
    case Penalty::None: return "none";
    default: return "l2";
  }
}

Penalty penalty_from_name(const std::string& name) {
  for (Penalty p : {Penalty::L2, Penalty::L1, Penalty::None})
    if (name == penalty_name(p)) return p;
  throw InvalidArgument("unknown penalty '" + name + "': use l2, l1 or none");
}

}  // namespace snapml
