#pragma once
// --root accepts a directory or a dump-sysroot archive; an archive is unpacked into a private
// temporary directory that lives as long as this object.

#include <string>

namespace kdrift {

class SysrootArgument {
 public:
  explicit SysrootArgument(const std::string& argument);
  SysrootArgument(const SysrootArgument&) = delete;
  SysrootArgument& operator=(const SysrootArgument&) = delete;
  ~SysrootArgument();

  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  std::string unpacked_;  // temporary directory to remove, if the argument was an archive
};

}  // namespace kdrift
