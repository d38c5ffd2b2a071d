#include "collect/device_path.h"

#include <cctype>

namespace kdrift {
namespace {

bool hex_run(std::string_view text, size_t min_digits, size_t max_digits) {
  if (text.size() < min_digits || text.size() > max_digits) return false;
  for (const char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

bool is_pci_address(std::string_view name) {
  const auto dot = name.rfind('.');
  const auto second_colon = name.rfind(':');
  const auto first_colon = name.find(':');
  if (dot == std::string_view::npos || first_colon == second_colon || second_colon > dot) {
    return false;
  }
  const auto function = name.substr(dot + 1);
  return hex_run(name.substr(0, first_colon), 4, 8) &&
         hex_run(name.substr(first_colon + 1, second_colon - first_colon - 1), 2, 2) &&
         hex_run(name.substr(second_colon + 1, dot - second_colon - 1), 2, 2) &&
         function.size() == 1 && function[0] >= '0' && function[0] <= '7';
}

std::vector<PciFunction> pci_functions_on_path(std::string_view resolved) {
  std::vector<PciFunction> functions;
  size_t start = 0;
  while (start < resolved.size()) {
    auto end = resolved.find('/', start);
    if (end == std::string_view::npos) end = resolved.size();
    const auto component = resolved.substr(start, end - start);
    if (is_pci_address(component)) {
      functions.push_back({std::string(component), std::string(resolved.substr(0, end))});
    }
    start = end + 1;
  }
  return functions;
}

std::optional<PciFunction> nearest_pci_function(std::string_view resolved) {
  auto functions = pci_functions_on_path(resolved);
  if (functions.empty()) return std::nullopt;
  return std::move(functions.back());
}

}  // namespace kdrift
