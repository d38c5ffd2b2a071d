#pragma once
// One folder of another backend served as the whole root: an archive or directory whose tree
// sits under one top folder (an lscpu dump, a sos report) is read from inside that folder. Every
// lookup still goes through the backend below, so the folder is never re-opened by name and
// cannot be swapped for a symlink between the look that chose it and the reads that follow.

#include <memory>
#include <string>

#include "util/sysroot_backend.h"

namespace kdrift {

class SubtreeBackend final : public SysRootBackend {
 public:
  // folder: an absolute path in inner ("/sosreport-host-2026-12-01"), a directory there.
  SubtreeBackend(std::shared_ptr<const SysRootBackend> inner, std::string folder)
      : inner_(std::move(inner)), folder_(std::move(folder)) {}

  Result<EntryKind> kind(const std::string& path) const override;
  Result<std::string> link_target(const std::string& path) const override;
  Result<std::string> read(const std::string& path, size_t max_bytes,
                           ReadExtent extent) const override;
  Result<std::vector<DirEntry>> list(const std::string& path) const override;
  Result<std::string> host_path(const std::string& path) const override;

 private:
  std::string inside(const std::string& path) const;
  // An error from inner names the path as the collector asked for it, not the folder's.
  Error outside(Error error, const std::string& path) const;

  std::shared_ptr<const SysRootBackend> inner_;
  std::string folder_;
};

}  // namespace kdrift
