#include "cli/sysroot_argument.h"

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

}  // namespace kdrift
