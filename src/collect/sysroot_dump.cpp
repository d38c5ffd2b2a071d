#include "collect/sysroot_dump.h"

#include <set>

#include "collect/capture.h"
#include "util/access_log.h"
#include "util/tarball.h"
#include "util/version.h"

namespace kdrift {
namespace {

void add_parents(const std::string& path, std::set<std::string>& directories) {
  for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0;
       slash = path.rfind('/', slash - 1)) {
    directories.insert(path.substr(0, slash));
  }
}

std::string relative(const std::string& path) {
  return path.substr(1);
}

}  // namespace

Result<SysrootDump> dump_sysroot(SysRoot root) {
  AccessLog log;
  root.record_to(&log);
  SysrootDump dump;
  dump.snapshot = capture_snapshot(root);
  root.record_to(nullptr);
  if (auto within = root.within_budget(); !within) return within.error();

  std::set<std::string> directories = log.directories();
  directories.erase("/");
  for (const auto& [path, content] : log.files())
    add_parents(path, directories);
  for (const auto& [path, target] : log.symlinks())
    add_parents(path, directories);
  for (const auto& path : log.directories())
    add_parents(path, directories);

  Json manifest = {{"schema", "kdrift.sysroot/1"}, {"kdrift_version", kKdriftVersion},
                   {"source_root", root.root()},   {"complete", root.complete()},
                   {"errors", log.failures()},     {"unread", log.unread_files()}};

  std::vector<TarMember> members;
  members.push_back({std::string(kDumpManifest), TarMember::Type::kFile, to_text(manifest)});
  members.push_back(
      {std::string(kDumpSnapshotName), TarMember::Type::kFile, to_text(dump.snapshot)});
  for (const auto& path : directories) {
    // A path recorded as a symlink is written as the symlink, not as a directory.
    if (log.symlinks().count(path) == 0) {
      members.push_back({relative(path), TarMember::Type::kDirectory, {}});
    }
  }
  for (const auto& [path, target] : log.symlinks()) {
    members.push_back({relative(path), TarMember::Type::kSymlink, target});
  }
  for (const auto& [path, content] : log.files()) {
    members.push_back({relative(path), TarMember::Type::kFile, content});
  }
  auto archive = make_tar_gz(members);
  if (!archive) return archive.error();
  dump.tar_gz = std::move(*archive);
  return dump;
}

}  // namespace kdrift
