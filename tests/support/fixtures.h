#pragma once
// Test helpers: temporary sysroot trees built file by file, and the committed dump fixtures read
// as --root reads them (into memory) or, for tests that need files to damage, unpacked.

#include <string>
#include <string_view>
#include <vector>

#include "util/sysroot.h"

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
// tests/fixtures/sysroots/<name>.tar.gz read into memory (once per process), as --root does.
SysRoot fixture_sysroot(std::string_view name);
std::string fixture_archive(std::string_view name);
// The bytes of tests/fixtures/fio/<name>: what fio wrote, as import-fio is given it.
std::string fio_fixture(const std::string& name);
// Writes the archive's tree below directory (created if missing): test-only, since kdrift itself
// never unpacks a dump. The archive is read with ArchiveTree, so its refusals apply here too.
void unpack_archive(const std::string& archive, const std::string& directory);
// Names of every committed sysroot fixture (without .tar.gz), sorted.
std::vector<std::string> fixture_sysroot_names();

}  // namespace kdrift::testing
