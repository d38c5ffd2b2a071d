#include "boot/bls_entry.h"

#include <algorithm>

#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxEntryBytes = std::size_t{64} << 10;
constexpr std::size_t kMaxLineBytes = 4096;

bool printable_line(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return c == '\t' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
  });
}

}  // namespace

Result<BlsEntry> parse_bls_entry(std::string_view text, std::string file_name) {
  if (text.size() > kMaxEntryBytes) return content_error("larger than 64 KiB");
  BlsEntry entry;
  entry.file_name = std::move(file_name);
  std::size_t number = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++number;
    const std::string where = "line " + std::to_string(number) + ": ";
    if (raw.size() > kMaxLineBytes) return content_error(where + "longer than 4 KiB");
    if (!printable_line(raw)) return content_error(where + "a control character");
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const auto space = line.find_first_of(" \t");
    const std::string key(line.substr(0, space));
    const std::string value(space == std::string_view::npos ? "" : trim(line.substr(space)));
    if (key == "title") entry.title = value;
    if (key == "version") entry.version = value;
    if (key == "machine-id") entry.machine_id = value;
    if (key == "linux") entry.linux_path = value;
    if (key == "initrd") entry.initrd_paths.push_back(value);
    if (key == "options") entry.options += (entry.options.empty() ? "" : " ") + value;
  }
  return entry;
}

Result<std::string> render_bls_entry(const BlsEntry& entry, std::string_view comment) {
  std::string text = "# " + std::string(comment) + "\n";
  const auto add = [&text](std::string_view key, std::string_view value) -> Status {
    if (value.empty()) return ok_status();
    if (value.size() > kMaxLineBytes || !printable_line(value) ||
        value.find('\t') != std::string_view::npos) {
      return content_error(std::string(key) + " \"" + terminal_safe(value) +
                           "\" is not one line of printable text");
    }
    text += std::string(key) + " " + std::string(value) + "\n";
    return ok_status();
  };
  for (const auto& [key, value] :
       {std::pair{"title", &entry.title}, std::pair{"version", &entry.version},
        std::pair{"machine-id", &entry.machine_id}, std::pair{"linux", &entry.linux_path}}) {
    if (auto added = add(key, *value); !added) return added.error();
  }
  for (const std::string& initrd : entry.initrd_paths) {
    if (auto added = add("initrd", initrd); !added) return added.error();
  }
  if (auto added = add("options", entry.options); !added) return added.error();
  return text;
}

}  // namespace kdrift
