#pragma once
// gzip'd tar archives through libarchive: dump-sysroot writes them. Nothing here unpacks one:
// --root reads an archive into memory (archive_tree.h).

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

}  // namespace kdrift
