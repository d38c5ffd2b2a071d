#include "collect/facts.h"

#include <cstdint>

#include "util/text.h"

namespace kdrift {

void mark_unavailable(Json& section, std::string_view key, std::string reason) {
  section[kUnavailableKey][std::string(key)] = std::move(reason);
}

void mark_unavailable(Json& section, std::string_view key, const Error& error) {
  mark_unavailable(section, key, error.describe());
}

Json typed_value(std::string_view text) {
  text = trim(text);
  if (const auto number = parse_int(text); number && text.find("0x") == std::string_view::npos) {
    return *number;
  }
  return std::string(text);
}

bool put_value(Json& section, std::string_view key, const SysRoot& root, std::string_view path) {
  auto value = root.read_value(path);
  if (!value) {
    mark_unavailable(section, key, value.error());
    return false;
  }
  section[std::string(key)] = typed_value(*value);
  return true;
}

bool put_text(Json& section, std::string_view key, const SysRoot& root, std::string_view path) {
  auto value = root.read_value(path);
  if (!value) {
    mark_unavailable(section, key, value.error());
    return false;
  }
  section[std::string(key)] = *value;
  return true;
}

bool put_int(Json& section, std::string_view key, const SysRoot& root, std::string_view path) {
  auto value = root.read_value(path);
  if (!value) {
    mark_unavailable(section, key, value.error());
    return false;
  }
  const auto number = parse_int(*value);
  if (!number) {
    mark_unavailable(section, key,
                     std::string(path) + ": expected an integer, found \"" + *value + "\"");
    return false;
  }
  section[std::string(key)] = *number;
  return true;
}

bool put_sectors(Json& section, std::string_view key, const SysRoot& root, std::string_view path) {
  constexpr int64_t kSectorBytes = 512;
  if (!put_int(section, key, root, path)) return false;
  const auto sectors = section[std::string(key)].get<int64_t>();
  if (sectors < 0 || sectors > INT64_MAX / kSectorBytes) {
    section.erase(std::string(key));
    mark_unavailable(section, key,
                     std::string(path) + ": not a size in sectors: " + std::to_string(sectors));
    return false;
  }
  section[std::string(key) + "_bytes"] = sectors * kSectorBytes;
  return true;
}

Json read_attribute_directory(const SysRoot& root, std::string_view directory) {
  Json attributes = Json::object();
  auto entries = root.list_entries(directory);
  if (!entries) {
    mark_unavailable(attributes, "*", entries.error());
    return attributes;
  }
  const std::string base(directory);
  for (const auto& entry : *entries) {
    if (entry.kind == EntryKind::kDirectory || entry.kind == EntryKind::kSymlink) continue;
    put_value(attributes, entry.name, root, base + "/" + entry.name);
  }
  return attributes;
}

}  // namespace kdrift
