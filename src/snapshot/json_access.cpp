#include "snapshot/json_access.h"

namespace kdrift {

const Json* member(const Json& node, std::string_view key) {
  if (!node.is_object()) return nullptr;
  const auto found = node.find(key);
  return found == node.end() ? nullptr : &*found;
}

const Json* object_member(const Json& node, std::string_view key) {
  const Json* found = member(node, key);
  return found != nullptr && found->is_object() ? found : nullptr;
}

const Json* array_member(const Json& node, std::string_view key) {
  const Json* found = member(node, key);
  return found != nullptr && found->is_array() ? found : nullptr;
}

std::string text_member(const Json& node, std::string_view key, std::string fallback) {
  const Json* found = member(node, key);
  return found != nullptr && found->is_string() ? found->get<std::string>() : fallback;
}

std::optional<double> number_member(const Json& node, std::string_view key) {
  const Json* found = member(node, key);
  if (found == nullptr || !found->is_number()) return std::nullopt;
  return found->get<double>();
}

std::vector<double> numbers_in(const Json* list) {
  std::vector<double> values;
  if (list == nullptr || !list->is_array()) return values;
  for (const auto& item : *list) {
    if (item.is_number()) values.push_back(item.get<double>());
  }
  return values;
}

}  // namespace kdrift
