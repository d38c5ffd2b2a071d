#include "util/archive_backend.h"

#include <algorithm>

namespace kdrift {
namespace {

using Type = ArchiveTree::Node::Type;

EntryKind kind_of(Type type) {
  switch (type) {
    case Type::kFile:
      return EntryKind::kFile;
    case Type::kDirectory:
      return EntryKind::kDirectory;
    case Type::kSymlink:
      return EntryKind::kSymlink;
  }
  return EntryKind::kOther;
}

}  // namespace

Result<const ArchiveTree::Node*> ArchiveBackend::find(const std::string& path) const {
  const auto* node = tree_.find(path);
  if (node != nullptr) return node;
  // As a filesystem answers a name below a file: ENOTDIR, not ENOENT (dumps replay errnos).
  const auto* parent = tree_.find(path.substr(0, std::max<size_t>(path.rfind('/'), 1)));
  const bool below_file = parent != nullptr && parent->type != Type::kDirectory;
  return make_error(below_file ? ENOTDIR : ENOENT, path);
}

Result<EntryKind> ArchiveBackend::kind(const std::string& path) const {
  auto node = find(path);
  if (!node) return node.error();
  return kind_of((*node)->type);
}

Result<std::string> ArchiveBackend::link_target(const std::string& path) const {
  auto node = find(path);
  if (!node) return node.error();
  if ((*node)->type != Type::kSymlink) return make_error(EINVAL, path);
  return (*node)->data;
}

// As DirectoryBackend answers: a symlink is not followed (ELOOP), anything but a file is EINVAL.
Result<std::string> ArchiveBackend::read(const std::string& path, size_t max_bytes,
                                         ReadExtent extent) const {
  auto node = find(path);
  if (!node) return node.error();
  if ((*node)->type == Type::kSymlink) return make_error(ELOOP, path);
  if ((*node)->type != Type::kFile) return make_error(EINVAL, path + " is not a regular file");
  if (!(*node)->held) {
    return make_error(ENODATA, path + " (in the archive, but outside what kdrift reads from one)");
  }
  const std::string& content = (*node)->data;
  if (content.size() <= max_bytes) return content;
  if (extent != ReadExtent::kWhole) return content.substr(0, max_bytes);
  return make_error(EFBIG, path);
}

Result<std::vector<DirEntry>> ArchiveBackend::list(const std::string& path) const {
  auto node = find(path);
  if (!node) return node.error();
  if ((*node)->type != Type::kDirectory) return make_error(ENOTDIR, path);
  std::vector<DirEntry> entries;
  entries.reserve((*node)->names.size());
  const std::string prefix = path == "/" ? "/" : path + "/";
  for (const auto& name : (*node)->names) {
    entries.push_back({name, kind_of(tree_.find(prefix + name)->type)});
  }
  return entries;
}

Result<std::string> ArchiveBackend::host_path(const std::string& path) const {
  return make_error(ENOENT, path + " (in a dump archive read into memory, not on disk)");
}

}  // namespace kdrift
