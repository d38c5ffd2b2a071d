#pragma once
// A directory kdrift keeps its own state in (the bisect journal, the applied-knob record, the
// boot history): what it holds decides what root does next (which kernel to kexec, which sysfs
// file to write), so no other user may be able to change it, nor the path that leads to it.
//
// The path is opened once, from "/" one component at a time, never following a symlink, and
// each directory is checked on the descriptor that was opened, so what is checked is what is
// used: every directory on the way must be owned by root or by the user running kdrift and not
// writable by its group or others, except a root-owned sticky directory such as /tmp (there
// nobody can rename or remove an entry they do not own, and the next component must itself be
// root's or ours); the directory itself must be owned by root or that user and not writable by
// its group or others. After that every file is reached through the descriptor alone, so
// renaming or exchanging a directory on the path afterwards changes nothing.

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/unique_fd.h"

namespace kdrift {

// A state directory's stakes: what every refusal of one says is at risk.
inline constexpr std::string_view kStateDirStakes =
    "a directory kdrift keeps state in, and every directory above it, must be writable by root "
    "or the user running kdrift alone";

// Whom a trusted directory may belong to, and what a refusal says is at risk.
struct Trust {
  uid_t user = ::geteuid();  // besides root: the user running kdrift
  // Whether the directory itself may be a root-owned sticky one (/tmp): only for a directory
  // whose files are each judged before use (open_trusted_file), since others may add files there.
  bool sticky_holder = false;
  std::string_view stakes = kStateDirStakes;
};

class TrustedDir {
 public:
  enum class Missing { kRefuse, kCreate };

  // The directory at path (relative to the working directory when not absolute), checked as
  // above. A component that does not exist is ENOENT, or with kCreate made with mode (whatever
  // the umask) and then checked like the rest. Refusals are EPERM (a symlink ELOOP, not a
  // directory ENOTDIR) naming path, the component and why: its owner uid or its mode.
  static Result<TrustedDir> open(const std::string& path, Missing missing = Missing::kRefuse,
                                 mode_t mode = 0755, const Trust& trust = {});

  // The path as given, for messages and for what kdrift prints.
  const std::string& path() const { return path_; }
  // path/name, for messages.
  std::string path_of(std::string_view name) const;

  // A directory inside this one, walked into and checked as open() does.
  Result<TrustedDir> subdirectory(std::string_view name, Missing missing = Missing::kRefuse,
                                  mode_t mode = 0755) const;

  // Whether the entry exists (whatever it is; a symlink is not followed).
  bool contains(std::string_view name) const;
  // The entries' names but "." and "..", in directory order.
  Result<std::vector<std::string>> list() const;
  // A regular file's content, read as read_whole_file does (bounded, never a FIFO or device),
  // never through a symlink. ENOENT when it does not exist.
  Result<std::string> read_file(std::string_view name, size_t max_bytes) const;
  // The regular file name opened with flags (O_NOFOLLOW and O_CLOEXEC added; O_CREAT makes it
  // with mode): what the journal appends to and what the lock holds.
  Result<UniqueFd> open_file(std::string_view name, int flags, mode_t mode = 0600) const;
  // The regular file name opened read-only, refused (EPERM, or ELOOP for a symlink) unless it
  // too belongs to root or the trusted user and nobody else may write it: a file whose content
  // root acts on, such as a kexec image.
  Result<UniqueFd> open_trusted_file(std::string_view name) const;
  // write_file_atomically_at: temporary, fsync, rename over name, fsync of this directory.
  Status replace_file(std::string_view name, std::string_view content, mode_t mode = 0600) const;
  // Unlinks the file; one that is already gone is not an error.
  Status remove_file(std::string_view name) const;
  // Makes the directory's entries durable (a file created or removed survives a crash).
  Status sync() const;
  // Removes the directory itself when it is empty; one that still holds anything stays.
  Status remove_if_empty() const;

 private:
  TrustedDir(std::string path, UniqueFd fd, UniqueFd parent, std::string name, const Trust& trust)
      : path_(std::move(path)),
        fd_(std::move(fd)),
        parent_(std::move(parent)),
        name_(std::move(name)),
        trust_(trust) {}

  std::string path_;
  UniqueFd fd_;      // O_RDONLY: fsync and listing need a real descriptor
  UniqueFd parent_;  // O_PATH, for remove_if_empty; empty for "/"
  std::string name_;
  Trust trust_;
};

}  // namespace kdrift
