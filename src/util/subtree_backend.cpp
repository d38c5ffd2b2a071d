#include "util/subtree_backend.h"

namespace kdrift {

std::string SubtreeBackend::inside(const std::string& path) const {
  return path == "/" ? folder_ : folder_ + path;
}

Error SubtreeBackend::outside(Error error, const std::string& path) const {
  if (error.context.compare(0, folder_.size(), folder_) == 0) {
    error.context =
        path + error.context.substr(std::min(error.context.size(), inside(path).size()));
  }
  return error;
}

Result<EntryKind> SubtreeBackend::kind(const std::string& path) const {
  auto kind = inner_->kind(inside(path));
  if (!kind) return outside(kind.error(), path);
  return kind;
}

Result<std::string> SubtreeBackend::link_target(const std::string& path) const {
  auto target = inner_->link_target(inside(path));
  if (!target) return outside(target.error(), path);
  return target;
}

Result<std::string> SubtreeBackend::read(const std::string& path, size_t max_bytes,
                                         ReadExtent extent) const {
  auto content = inner_->read(inside(path), max_bytes, extent);
  if (!content) return outside(content.error(), path);
  return content;
}

Result<std::vector<DirEntry>> SubtreeBackend::list(const std::string& path) const {
  auto entries = inner_->list(inside(path));
  if (!entries) return outside(entries.error(), path);
  return entries;
}

Result<std::string> SubtreeBackend::host_path(const std::string& path) const {
  return inner_->host_path(inside(path));
}

}  // namespace kdrift
