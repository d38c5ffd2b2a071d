#pragma once
// SysRoot's files from a dump archive held in memory (ArchiveTree): nothing of it is on disk,
// so there is no host path to give a library, and no mode or owner it carried means anything.

#include <memory>

#include "util/archive_tree.h"
#include "util/sysroot_backend.h"

namespace kdrift {

class ArchiveBackend final : public SysRootBackend {
 public:
  explicit ArchiveBackend(ArchiveTree tree) : tree_(std::move(tree)) {}

  Result<EntryKind> kind(const std::string& path) const override;
  Result<std::string> link_target(const std::string& path) const override;
  Result<std::string> read(const std::string& path, size_t max_bytes,
                           ReadExtent extent) const override;
  Result<std::vector<DirEntry>> list(const std::string& path) const override;
  Result<std::string> host_path(const std::string& path) const override;

 private:
  Result<const ArchiveTree::Node*> find(const std::string& path) const;

  ArchiveTree tree_;
};

}  // namespace kdrift
