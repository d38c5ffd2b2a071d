#include "collect/meminfo.h"

#include "collect/facts.h"
#include "util/text.h"

namespace kdrift {

MeminfoFields parse_meminfo(std::string_view text) {
  MeminfoFields fields;
  for (const auto& line : split_lines(text)) {
    std::string_view rest = trim(line);
    if (starts_with(rest, "Node ")) {
      const auto after_id = rest.find(' ', 5);
      if (after_id == std::string_view::npos) continue;
      rest = trim(rest.substr(after_id));
    }
    const auto colon = rest.find(':');
    if (colon == std::string_view::npos) continue;
    fields.emplace(trim(rest.substr(0, colon)), trim(rest.substr(colon + 1)));
  }
  return fields;
}

void put_meminfo_field(Json& section, std::string_view key, const MeminfoFields& fields,
                       std::string_view field, std::string_view path) {
  const auto it = fields.find(field);
  if (it == fields.end()) {
    mark_unavailable(section, key, std::string(path) + ": no " + std::string(field) + " line");
    return;
  }
  const auto words = split_whitespace(it->second);
  const auto number = words.empty() ? std::nullopt : parse_uint(words[0]);
  constexpr uint64_t kBytesPerKb = 1024;
  if (number && words.size() == 1) {
    section[std::string(key)] = *number;
  } else if (number && words.size() == 2 && words[1] == "kB" &&
             *number <= UINT64_MAX / kBytesPerKb) {
    section[std::string(key)] = *number * kBytesPerKb;
  } else {
    mark_unavailable(section, key,
                     std::string(path) + ": " + std::string(field) +
                         ": expected a number, optionally in kB, found " + quote_value(it->second));
  }
}

}  // namespace kdrift
