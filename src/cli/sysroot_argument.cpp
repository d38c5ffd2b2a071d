#include "cli/sysroot_argument.h"

#include "collect/capture.h"
#include "collect/sos_report.h"
#include "util/fatal.h"
#include "util/sysroot_open.h"
#include "util/text.h"

namespace kdrift {

SysRoot sysroot_argument(const std::string& argument) {
  auto root = open_sysroot(argument, sos_report_format());
  if (!root) throw FatalError("--root " + terminal_safe(argument) + ": " + root.error().describe());
  return std::move(*root);
}

Json capture_argument(const std::string& argument) {
  const SysRoot root = sysroot_argument(argument);
  Json snapshot = capture_snapshot(root);
  if (auto within = root.within_budget(); !within) {
    throw FatalError("--root " + terminal_safe(argument) + ": " + within.error().describe());
  }
  return snapshot;
}

}  // namespace kdrift
