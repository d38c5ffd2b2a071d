#pragma once
// SysRoot's files from a filesystem: the live host, or a directory someone else may control.
// Below a directory the root is opened once and every path is looked up relative to that
// descriptor, never through a symlink, a magic link or ".." (openat2 RESOLVE_IN_ROOT with
// RESOLVE_NO_SYMLINKS; one openat(O_NOFOLLOW) per component where the kernel lacks openat2).
// SysRoot has resolved every symlink before it asks, so a symlink met here was put there since:
// the lookup fails instead of following it. A file is read from the descriptor that was opened
// and checked (fstat: a regular file), so what is read is what was checked; on the live host a
// file of sysfs or procfs needs no such check (util/kernel_mounts.h).
// A tree owned by someone other than root may hold a hard link to a file its owner cannot read
// (where fs.protected_hardlinks is 0, or the link predates a chown): such a file is refused, so
// kdrift never shows through a tree what the tree's owner could not read.

#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

#include "util/kernel_mounts.h"
#include "util/sysroot_backend.h"
#include "util/unique_fd.h"

namespace kdrift {

// Who owns a directory root: the person whose reading rights its files are held to.
struct TreeOwner {
  uid_t uid = 0;
  gid_t gid = 0;
};

class DirectoryBackend final : public SysRootBackend {
 public:
  enum class Lookup {
    kHost,           // the live host: paths taken as they are
    kOpenat2,        // below the root fd by openat2; kComponentWalk where it is ENOSYS
    kComponentWalk,  // below the root fd one component at a time
  };

  // The live host's "/".
  static std::shared_ptr<const DirectoryBackend> host();
  // A directory root, opened now; if it cannot be, every lookup fails with that errno.
  explicit DirectoryBackend(const std::string& root, Lookup lookup = Lookup::kOpenat2);

  Lookup lookup() const { return lookup_; }

  Result<EntryKind> kind(const std::string& path) const override;
  Result<std::string> link_target(const std::string& path) const override;
  Result<std::string> read(const std::string& path, size_t max_bytes,
                           ReadExtent extent) const override;
  Result<std::vector<DirEntry>> list(const std::string& path) const override;
  Result<std::string> host_path(const std::string& path) const override;

 private:
  DirectoryBackend() : root_("/"), lookup_(Lookup::kHost) {}

  // path opened with flags (plus O_NOFOLLOW, O_CLOEXEC); the error names path.
  Result<UniqueFd> open(const std::string& path, int flags) const;
  int open_in_root(const std::string& relative, int flags) const;
  int open_by_components(const std::string& relative, int flags) const;
  // The live host's mount table, read at the first file read.
  const KernelMounts& kernel_mounts() const;

  std::string root_;
  UniqueFd root_fd_;
  int root_error_ = 0;
  std::optional<TreeOwner> owner_;  // none for the live host
  mutable std::atomic<Lookup> lookup_;
  mutable std::once_flag mounts_read_;
  mutable KernelMounts mounts_;
};

}  // namespace kdrift
