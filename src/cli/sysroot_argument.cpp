#include "cli/sysroot_argument.h"

#include <sys/stat.h>

#include <filesystem>

#include "collect/sos_report.h"
#include "util/archive_backend.h"
#include "util/archive_tree.h"
#include "util/directory_backend.h"
#include "util/fatal.h"

namespace kdrift {

SysRoot sysroot_argument(const std::string& argument) {
  struct stat st {};
  if (::stat(argument.c_str(), &st) != 0) {
    throw FatalError("--root " + argument + ": no such directory or dump archive");
  }
  if (S_ISDIR(st.st_mode)) {
    SysRoot root(argument);
    if (root.live()) return root;
    return SysRoot(root.root(), with_sos_commands(std::make_shared<DirectoryBackend>(root.root())));
  }
  if (!S_ISREG(st.st_mode)) {
    throw FatalError("--root " + argument + ": neither a directory nor a dump archive");
  }
  auto tree = ArchiveTree::read_file(argument);
  if (!tree) throw FatalError("--root " + argument + ": " + tree.error().describe());
  std::error_code error;
  const auto absolute = std::filesystem::absolute(argument, error).lexically_normal().string();
  return SysRoot(error ? argument : absolute,
                 with_sos_commands(std::make_shared<ArchiveBackend>(std::move(*tree))));
}

}  // namespace kdrift
