#include "support/fixtures.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "util/archive_backend.h"
#include "util/archive_tree.h"

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

std::string fixture_archive(std::string_view name) {
  return source_dir() + "/tests/fixtures/sysroots/" + std::string(name) + ".tar.gz";
}

std::string fio_fixture(const std::string& name) {
  return read_bytes(source_dir() + "/tests/fixtures/fio/" + name);
}

SysRoot fixture_sysroot(std::string_view name) {
  static std::map<std::string, SysRoot, std::less<>> read;
  if (const auto it = read.find(name); it != read.end()) return it->second;
  const std::string archive = fixture_archive(name);
  auto tree = ArchiveTree::read_file(archive);
  if (!tree) throw std::runtime_error("cannot read " + archive + ": " + tree.error().describe());
  SysRoot root(archive, std::make_shared<ArchiveBackend>(std::move(*tree)));
  return read.emplace(std::string(name), std::move(root)).first->second;
}

void unpack_archive(const std::string& archive, const std::string& directory) {
  auto tree = ArchiveTree::read_file(archive);
  if (!tree) throw std::runtime_error("cannot read " + archive + ": " + tree.error().describe());
  fs::create_directories(directory);
  for (const auto& [path, node] : tree->nodes()) {
    const fs::path target = fs::path(directory) / path.substr(1);
    switch (node.type) {
      case ArchiveTree::Node::Type::kDirectory:
        fs::create_directories(target);
        break;
      case ArchiveTree::Node::Type::kSymlink:
        fs::create_directories(target.parent_path());
        fs::create_symlink(node.data, target);
        break;
      case ArchiveTree::Node::Type::kFile:
        fs::create_directories(target.parent_path());
        std::ofstream(target, std::ios::binary | std::ios::trunc) << node.data;
        break;
    }
  }
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
