#include "support/fixtures.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "util/tarball.h"

namespace fs = std::filesystem;

namespace kdrift::testing {

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "kdrift-test.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  // Tests may leave unreadable modes behind; give them back so removal works.
  for (auto it = fs::recursive_directory_iterator(path_, ignored);
       it != fs::recursive_directory_iterator(); it.increment(ignored)) {
    if (!it->is_symlink(ignored)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    }
  }
  fs::remove_all(path_, ignored);
}

void TempDir::write(std::string_view relative, std::string_view content) const {
  const fs::path target = fs::path(path_) / relative;
  fs::create_directories(target.parent_path());
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

void TempDir::symlink(std::string_view relative, std::string_view target) const {
  const fs::path link = fs::path(path_) / relative;
  fs::create_directories(link.parent_path());
  fs::create_symlink(target, link);
}

void TempDir::mkdir(std::string_view relative) const {
  fs::create_directories(fs::path(path_) / relative);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string source_dir() {
  const char* dir = std::getenv("KDRIFT_SOURCE_DIR");
  return dir != nullptr ? dir : KDRIFT_TEST_SOURCE_DIR;
}

std::string kdrift_binary() {
  const char* binary = std::getenv("KDRIFT_BINARY");
  return binary != nullptr ? binary : KDRIFT_TEST_BINARY;
}

std::string fixture_sysroot(std::string_view name) {
  static std::map<std::string, std::unique_ptr<TempDir>, std::less<>> unpacked;
  if (const auto it = unpacked.find(name); it != unpacked.end()) return it->second->path();
  auto dir = std::make_unique<TempDir>();
  const std::string archive =
      source_dir() + "/tests/fixtures/sysroots/" + std::string(name) + ".tar.gz";
  if (auto status = extract_tar_gz(archive, dir->path()); !status) {
    throw std::runtime_error("cannot unpack " + archive + ": " + status.error().describe());
  }
  const std::string path = dir->path();
  unpacked.emplace(std::string(name), std::move(dir));
  return path;
}

std::vector<std::string> fixture_sysroot_names() {
  std::vector<std::string> names;
  const fs::path dir = fs::path(source_dir()) / "tests/fixtures/sysroots";
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(dir, ignored)) {
    const std::string file = entry.path().filename().string();
    constexpr std::string_view kSuffix = ".tar.gz";
    if (file.size() > kSuffix.size() && file.ends_with(kSuffix)) {
      names.push_back(file.substr(0, file.size() - kSuffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace kdrift::testing
