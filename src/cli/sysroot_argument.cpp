#include "cli/sysroot_argument.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

#include "util/fatal.h"
#include "util/tarball.h"

namespace kdrift {

SysrootArgument::SysrootArgument(const std::string& argument) {
  struct stat st {};
  if (::stat(argument.c_str(), &st) != 0) {
    throw FatalError("--root " + argument + ": no such directory or dump archive");
  }
  if (S_ISDIR(st.st_mode)) {
    directory_ = argument;
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    throw FatalError("--root " + argument + ": neither a directory nor a dump archive");
  }
  std::string temp = std::filesystem::temp_directory_path().string() + "/kdrift-root.XXXXXX";
  if (::mkdtemp(temp.data()) == nullptr) throw FatalError("cannot create a temporary directory");
  unpacked_ = temp;
  if (auto status = extract_tar_gz(argument, temp); !status) {
    std::error_code ignored;
    std::filesystem::remove_all(unpacked_, ignored);
    throw FatalError("--root " + argument +
                     ": not a readable dump archive: " + status.error().describe());
  }
  directory_ = temp;
}

SysrootArgument::~SysrootArgument() {
  if (unpacked_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(unpacked_, ignored);
}

}  // namespace kdrift
