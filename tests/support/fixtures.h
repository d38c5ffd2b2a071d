#pragma once
// Test helpers: temporary sysroot trees built file by file, and the committed dump fixtures
// unpacked on demand.

#include <string>
#include <string_view>
#include <vector>

namespace kdrift::testing {

// A temporary directory removed with the object.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }

  // Creates parent directories as needed.
  void write(std::string_view relative, std::string_view content) const;
  void symlink(std::string_view relative, std::string_view target) const;
  void mkdir(std::string_view relative) const;

 private:
  std::string path_;
};

// Whole content of a file, binary-safe; empty when it cannot be read.
std::string read_bytes(const std::string& path);

std::string source_dir();
// Path of the kdrift binary under test (set by ctest).
std::string kdrift_binary();
// Unpacks tests/fixtures/sysroots/<name>.tar.gz once per process; returns the directory.
std::string fixture_sysroot(std::string_view name);
// Names of every committed sysroot fixture (without .tar.gz), sorted.
std::vector<std::string> fixture_sysroot_names();

}  // namespace kdrift::testing
