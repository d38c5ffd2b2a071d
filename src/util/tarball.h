#pragma once
// gzip'd tar archives through libarchive: dump-sysroot writes them, --root and tests unpack them.

#include <string>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct TarMember {
  enum class Type { kFile, kDirectory, kSymlink };
  std::string path;  // relative, no leading '/'
  Type type = Type::kFile;
  std::string data;  // file content, or symlink target
};

Result<std::string> make_tar_gz(const std::vector<TarMember>& members);

// Unpacks archive_path below destination, refusing absolute paths, ".." and writes through
// symlinks, so a hostile dump cannot touch anything outside destination.
Status extract_tar_gz(const std::string& archive_path, const std::string& destination);

}  // namespace kdrift
