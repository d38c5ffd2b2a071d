#pragma once
// One changed value of a diff as lines of text. Two large hosts differ in values thousands of
// characters long (every cpufreq policy, every IRQ's affinity); printed whole they make one
// unreadable line, so a change that does not fit is folded to a summary of its shape plus the
// elements that actually differ.

#include <string>
#include <vector>

#include "snapshot/json_access.h"

namespace kdrift {

struct ChangeText {
  std::string summary;  // "path: a → b", or "path: array of 64 → array of 64, …"
  std::vector<std::string> elements;  // "[3].governor: powersave → performance", when folded
  size_t elements_not_shown = 0;
};

// a or b null: absent on that side. Every value comes out terminal-safe.
ChangeText change_text(const std::string& path, const Json* a, const Json* b);

}  // namespace kdrift
