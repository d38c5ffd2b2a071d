#include "report/summary.h"

#include <sstream>

namespace kdrift {
namespace {

std::string text_of(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

const Json* find_path(const Json& root, std::initializer_list<std::string_view> keys) {
  const Json* node = &root;
  for (const auto key : keys) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(std::string(key));
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

void collect_unavailable(const Json& node, const std::string& prefix,
                         std::vector<std::string>& lines) {
  if (!node.is_object()) {
    if (node.is_array()) {
      for (size_t i = 0; i < node.size(); ++i) {
        collect_unavailable(node[i], prefix + "[" + std::to_string(i) + "]", lines);
      }
    }
    return;
  }
  for (const auto& [key, value] : node.items()) {
    if (key == "unavailable" && value.is_object()) {
      for (const auto& [what, why] : value.items()) {
        lines.push_back(prefix + "." + what + ": " + text_of(why));
      }
    } else {
      collect_unavailable(value, prefix.empty() ? key : prefix + "." + key, lines);
    }
  }
}

}  // namespace

std::string render_summary(const Json& snapshot, bool colour) {
  const std::string bold = colour ? "\033[1m" : "";
  const std::string reset = colour ? "\033[0m" : "";
  std::ostringstream out;
  const auto heading = [&](std::string_view title) { out << bold << title << reset << "\n"; };
  const auto row = [&](std::string_view label, const Json* value) {
    out << "  " << label << ": " << (value != nullptr ? text_of(*value) : "(unavailable)") << "\n";
  };

  heading("Kernel");
  row("release", find_path(snapshot, {"kernel", "release"}));
  row("command line", find_path(snapshot, {"kernel", "cmdline", "raw"}));
  row("config from", find_path(snapshot, {"kernel", "config", "source"}));

  std::vector<std::string> unavailable;
  for (const auto& [section, value] : snapshot.items()) {
    if (value.is_object()) collect_unavailable(value, section, unavailable);
  }
  if (!unavailable.empty()) {
    heading("Could not be read");
    for (const auto& line : unavailable) out << "  " << line << "\n";
  }
  return out.str();
}

}  // namespace kdrift
