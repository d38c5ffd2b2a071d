#include "report/history_text.h"

#include <sstream>

#include "report/text_table.h"
#include "snapshot/json_access.h"

namespace kdrift {

std::string render_history_text(const Json& history) {
  std::ostringstream out;
  const Json& boots = history.at("boots");
  out << "boots recorded in " << text_member(history, "directory") << ": " << boots.size() << "\n";
  Table table({"captured at", "release", "boot id", ""});
  for (const Json& boot : boots) {
    if (boot.contains("error")) {
      table.add({"?", "?", "?", "unreadable: " + text_member(boot, "error")});
      continue;
    }
    std::string mark;
    if (boot.value("kernel_changed", false)) {
      mark = "kernel changed (was " + text_member(boot, "previous_release") + ")";
    }
    if (boot.value("this_boot", false)) mark += mark.empty() ? "this boot" : "; this boot";
    table.add({text_member(boot, "captured_at"), text_member(boot, "release"),
               text_member(boot, "boot_id"), mark});
  }
  if (!table.empty()) table.render(out);
  return out.str();
}

}  // namespace kdrift
