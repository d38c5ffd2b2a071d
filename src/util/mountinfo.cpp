#include "util/mountinfo.h"

#include <sys/sysmacros.h>

#include "util/text.h"

namespace kdrift {

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  for (const auto& line : split_lines(text)) {
    const auto fields = split_whitespace(line);
    if (fields.size() < 5) continue;
    MountEntry mount{parse_device_number(fields[2]), unescape_octal(fields[4]), {}};
    // Optional fields ("shared:1", "master:2") come between the mount options and " - ".
    size_t separator = 5;
    while (separator < fields.size() && fields[separator] != "-")
      ++separator;
    if (separator + 1 < fields.size()) mount.filesystem = fields[separator + 1];
    mounts.push_back(std::move(mount));
  }
  return mounts;
}

std::optional<dev_t> parse_device_number(std::string_view text) {
  const auto parts = split(trim(text), ':');
  const auto major = parts.size() == 2 ? parse_uint(parts[0]) : std::nullopt;
  const auto minor = parts.size() == 2 ? parse_uint(parts[1]) : std::nullopt;
  if (!major || !minor) return std::nullopt;
  return makedev(static_cast<unsigned>(*major), static_cast<unsigned>(*minor));
}

}  // namespace kdrift
