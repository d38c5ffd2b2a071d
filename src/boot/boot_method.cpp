#include "boot/boot_method.h"

#include <algorithm>

namespace kdrift {

bool is_plain_absolute_path(std::string_view path) {
  if (path.empty() || path.size() > 1024 || path.front() != '/') return false;
  if (path == "/") return true;
  std::string_view rest = path.substr(1);
  for (;;) {
    const auto slash = rest.find('/');
    const std::string_view component = rest.substr(0, slash);
    if (component.empty() || component == "." || component == "..") return false;
    if (!std::all_of(component.begin(), component.end(),
                     [](char c) { return c > ' ' && c < 127; })) {
      return false;
    }
    if (slash == std::string_view::npos) return true;
    rest = rest.substr(slash + 1);
  }
}

}  // namespace kdrift
