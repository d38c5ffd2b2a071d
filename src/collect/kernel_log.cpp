#include "collect/kernel_log.h"

#include "util/text.h"

namespace kdrift {
namespace {

// "prio,seq,usec,flags": the first three fields are numbers; more fields may follow in later
// kernels (the caller id), so only those are checked.
bool is_record_prefix(std::string_view prefix) {
  const auto fields = split(prefix, ',');
  if (fields.size() < 4) return false;
  for (size_t i = 0; i < 3; ++i) {
    if (!parse_uint(fields[i])) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> kernel_log_messages(std::string_view records) {
  std::vector<std::string> messages;
  for (auto& line : split_lines(records)) {
    if (line.empty() || line.front() == ' ') continue;
    const auto semicolon = line.find(';');
    if (semicolon == std::string::npos || !is_record_prefix(line.substr(0, semicolon))) continue;
    messages.push_back(line.substr(semicolon + 1));
  }
  return messages;
}

}  // namespace kdrift
