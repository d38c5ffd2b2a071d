#include "util/directory_backend.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "util/budgeted_backend.h"
#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

EntryKind kind_of_mode(mode_t mode) {
  if (S_ISLNK(mode)) return EntryKind::kSymlink;
  if (S_ISDIR(mode)) return EntryKind::kDirectory;
  if (S_ISREG(mode)) return EntryKind::kFile;
  return EntryKind::kOther;
}

std::optional<EntryKind> kind_of_dirent(unsigned char type) {
  switch (type) {
    case DT_LNK:
      return EntryKind::kSymlink;
    case DT_DIR:
      return EntryKind::kDirectory;
    case DT_REG:
      return EntryKind::kFile;
    case DT_UNKNOWN:
      return std::nullopt;
    default:
      return EntryKind::kOther;
  }
}

// "/" -> "."; "/a/b" -> "a/b": relative to the root descriptor.
std::string relative_to_root(const std::string& path) {
  const auto start = path.find_first_not_of('/');
  return start == std::string::npos ? "." : path.substr(start);
}

// Whether the tree's owner could read a file with this stat themselves. Their own files count
// as readable whatever the mode (they can chmod them); group membership is judged by the tree's
// group alone, so a file readable only through a supplementary group is refused.
bool owner_may_read(const struct stat& file, const TreeOwner& owner) {
  if (owner.uid == 0 || file.st_uid == owner.uid) return true;
  if ((file.st_mode & S_IROTH) != 0) return true;
  return file.st_gid == owner.gid && (file.st_mode & S_IRGRP) != 0;
}

// A file sysfs or procfs makes, opened without following a symbolic link, is a regular file or
// a directory, and a directory's read says so.
Result<std::string> read_kernel_file(int fd, const std::string& path, size_t max_bytes,
                                     ReadExtent extent, PseudoFs filesystem) {
  auto content = read_descriptor(
      fd, max_bytes, extent == ReadExtent::kWhole ? AtLimit::kRefuse : AtLimit::kStop,
      filesystem == PseudoFs::kSysfs || extent == ReadExtent::kFirstRecord
          ? FileEnd::kAtShortFirstPage
          : FileEnd::kAtEmptyRead);
  if (!content && content.error().code == EISDIR) {
    return make_error(EINVAL, path + " is not a regular file");
  }
  if (!content) return make_error(content.error().code, path);
  return content;
}

Result<std::string> read_regular(int fd, const std::string& path, size_t max_bytes,
                                 ReadExtent extent, const std::optional<TreeOwner>& owner) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_error(errno, path);
  if (!S_ISREG(st.st_mode)) return make_error(EINVAL, path + " is not a regular file");
  if (owner && !owner_may_read(st, *owner)) {
    return make_error(EACCES, path + " belongs to uid " + std::to_string(st.st_uid) +
                                  " and the tree's owner (uid " + std::to_string(owner->uid) +
                                  ") may not read it (a hard link from outside the tree?); kdrift "
                                  "reads such a file only from a tree root owns");
  }
  auto content = read_descriptor(fd, max_bytes,
                                 extent == ReadExtent::kWhole ? AtLimit::kRefuse : AtLimit::kStop);
  if (!content) return make_error(content.error().code, path);
  return content;
}

}  // namespace

std::shared_ptr<const DirectoryBackend> DirectoryBackend::host() {
  return std::shared_ptr<const DirectoryBackend>(new DirectoryBackend());
}

DirectoryBackend::DirectoryBackend(const std::string& root, Lookup lookup)
    : root_(root),
      root_fd_(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
      root_error_(root_fd_ ? 0 : errno),
      lookup_(lookup) {
  struct stat st {};
  if (root_fd_ && ::fstat(root_fd_.get(), &st) == 0) owner_ = TreeOwner{st.st_uid, st.st_gid};
}

Result<UniqueFd> DirectoryBackend::open(const std::string& path, int flags) const {
  flags |= O_NOFOLLOW | O_CLOEXEC;
  if (lookup_ == Lookup::kHost) {
    UniqueFd fd(::open(path.c_str(), flags));
    if (!fd) return make_error(errno, path);
    return fd;
  }
  if (!root_fd_) return make_error(root_error_, root_);
  const std::string relative = relative_to_root(path);
  UniqueFd fd(lookup_ == Lookup::kOpenat2 ? open_in_root(relative, flags)
                                          : open_by_components(relative, flags));
  if (!fd) return make_error(errno, path);
  return fd;
}

int DirectoryBackend::open_in_root(const std::string& relative, int flags) const {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS;
  const auto fd = ::syscall(SYS_openat2, root_fd_.get(), relative.c_str(), &how, sizeof how);
  if (fd < 0 && errno == ENOSYS) {  // before Linux 5.6
    lookup_ = Lookup::kComponentWalk;
    return open_by_components(relative, flags);
  }
  return static_cast<int>(fd);
}

// What openat2 does above, by hand: every directory on the way opened O_NOFOLLOW below the
// previous one, so neither a symlink nor ".." can lead out of the root.
int DirectoryBackend::open_by_components(const std::string& relative, int flags) const {
  const auto parts = split(relative, '/');
  int directory = root_fd_.get();
  UniqueFd held;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] == "..") {
      errno = EXDEV;
      return -1;
    }
    held = UniqueFd(
        ::openat(directory, parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!held) return -1;
    directory = held.get();
  }
  if (parts.back() == "..") {
    errno = EXDEV;
    return -1;
  }
  return ::openat(directory, parts.back().c_str(), flags);
}

const KernelMounts& DirectoryBackend::kernel_mounts() const {
  std::call_once(mounts_read_, [this] { mounts_ = KernelMounts::read_live(); });
  return mounts_;
}

Result<EntryKind> DirectoryBackend::kind(const std::string& path) const {
  if (lookup_ == Lookup::kHost) {  // paths taken as they are: one lstat says it
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return make_error(errno, path);
    return kind_of_mode(st.st_mode);
  }
  auto fd = open(path, O_PATH);
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return make_error(errno, path);
  return kind_of_mode(st.st_mode);
}

Result<std::string> DirectoryBackend::link_target(const std::string& path) const {
  // Not st_size: procfs and sysfs report every symlink as 0 bytes long.
  char buffer[4096];
  if (lookup_ == Lookup::kHost) {  // EINVAL when it is not a symlink, as below
    const auto length = ::readlink(path.c_str(), buffer, sizeof buffer);
    if (length < 0) return make_error(errno, path);
    return std::string(buffer, static_cast<size_t>(length));
  }
  auto fd = open(path, O_PATH);
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return make_error(errno, path);
  if (!S_ISLNK(st.st_mode)) return make_error(EINVAL, path);
  const auto length = ::readlinkat(fd->get(), "", buffer, sizeof buffer);
  if (length < 0) return make_error(errno, path);
  return std::string(buffer, static_cast<size_t>(length));
}

Result<std::string> DirectoryBackend::read(const std::string& path, size_t max_bytes,
                                           ReadExtent extent) const {
  // O_NONBLOCK: a FIFO put where a file was expected must not hang the open.
  auto fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd) return fd.error();
  if (lookup_ == Lookup::kHost) {
    const PseudoFs filesystem = kernel_mounts().filesystem_of(path);
    if (filesystem != PseudoFs::kOther) {
      return read_kernel_file(fd->get(), path, max_bytes, extent, filesystem);
    }
  }
  return read_regular(fd->get(), path, max_bytes, extent, owner_);
}

Result<std::vector<DirEntry>> DirectoryBackend::list(const std::string& path) const {
  auto fd = open(path, O_RDONLY | O_DIRECTORY);
  if (!fd) return fd.error();
  UniqueDir dir(::fdopendir(fd->get()));
  if (!dir) return make_error(errno, path);
  fd->release();  // the stream owns it now
  std::vector<DirEntry> entries;
  errno = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    auto kind = kind_of_dirent(entry->d_type);
    if (!kind) {
      // Filesystems without d_type (some overlay and network mounts) need the lstat.
      struct stat st {};
      kind = ::fstatat(::dirfd(dir.get()), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
                 ? kind_of_mode(st.st_mode)
                 : EntryKind::kOther;
    }
    // A tree another user made may hold millions of names in one directory: past the whole
    // tree's budget (budgeted_backend.h), reading on would cost memory for nothing.
    if (lookup_ != Lookup::kHost && entries.size() == kTreeBudget.entries) {
      return make_error(E2BIG, path + ": more than " + std::to_string(kTreeBudget.entries) +
                                   " entries in one directory");
    }
    entries.push_back({std::string(name), *kind});
    errno = 0;
  }
  if (errno != 0) return make_error(errno, path);
  return entries;
}

Result<std::string> DirectoryBackend::host_path(const std::string& path) const {
  return lookup_ == Lookup::kHost ? path : root_ + path;
}

}  // namespace kdrift
