#include <string>

#include "snapml/error.h"
#include "snapml/losses/dispatch.h"

namespace snapml {

const char* loss_name(LossKind kind) {
  switch (kind) {
    case LossKind::Logistic: return "logistic";
    case LossKind::Hinge: return "hinge";
    case LossKind::SquaredHinge: return "squared_hinge";
    case LossKind::Squared: return "squared";
  }
  return "unknown";
}

LossKind loss_from_name(const std::string& name) {
  for (LossKind kind : {LossKind::Logistic, LossKind::Hinge, LossKind::SquaredHinge, LossKind::Squared})
    if (name == loss_name(kind)) return kind;
  throw InvalidArgument("unknown loss '" + name +
                        "': use logistic, hinge, squared_hinge or squared");
}

}  // namespace snapml
