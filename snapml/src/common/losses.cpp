// The loss names, read from AllLosses (snapml/losses/dispatch.h).
#include <string>
#include <vector>

#include "snapml/error.h"
#include "snapml/losses/dispatch.h"

namespace snapml {

const char* loss_name(LossKind kind) {
  return visit_loss_type(kind, [](auto tag) -> const char* { return decltype(tag)::type::kName; });
}

std::vector<std::string> loss_names() {
  std::vector<std::string> names;
  for (int index = 0; index < AllLosses::size; ++index) names.emplace_back(loss_name(static_cast<LossKind>(index)));
  return names;
}

std::string loss_names_text(bool (*keep)(LossKind)) {
  std::vector<std::string> names;
  for (int index = 0; index < AllLosses::size; ++index)
    if (keep == nullptr || keep(static_cast<LossKind>(index))) names.emplace_back(loss_name(static_cast<LossKind>(index)));
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

LossKind loss_from_name(const std::string& name) {
  for (int index = 0; index < AllLosses::size; ++index)
    if (name == loss_name(static_cast<LossKind>(index))) return static_cast<LossKind>(index);
  throw InvalidArgument("unknown loss '" + name + "': use " + loss_names_text());
}

}  // namespace snapml
