#include "util/trusted_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>

#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

// One entry of the directory: a name, never a path that could lead out of it.
Status check_name(std::string_view name, const std::string& directory) {
  if (!name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos) {
    return ok_status();
  }
  return make_error(EINVAL, directory + ": " + quote_value(name) + " is not a file name in it");
}

// The absolute path's components. ".." is refused rather than resolved: the walk follows no
// symlink, so a ".." after one would not mean what the kernel makes of it.
Result<std::vector<std::string>> components(const std::string& path) {
  if (path.empty()) return make_error(ENOENT, "an empty directory path");
  std::string absolute = path;
  if (path.front() != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr) {
      return make_error(errno, path + ": the working directory");
    }
    absolute = std::string(cwd) + "/" + path;
  }
  std::vector<std::string> parts;
  for (std::string& part : split(absolute, '/')) {
    if (part == "..") {
      return make_error(EINVAL, path + ": a path with \"..\" is refused; give it without");
    }
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
  }
  return parts;
}

// "path: component" naming where on the way the walk stopped, or the component alone when it is
// the path.
std::string where(const std::string& component, const std::string& path) {
  return component == path ? component : path + ": " + component;
}

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Why root cannot trust what st describes, or empty: its owner is neither root nor the trusted
// user, or its group or others may write it. A root-owned sticky directory (/tmp) is safe where
// sticky_ok: others may add entries there but not rename or remove ours, and each entry walked
// into or opened next is checked for its own owner.
std::string untrusted(const struct stat& st, const Trust& trust, bool sticky_ok) {
  if (st.st_uid != 0 && st.st_uid != trust.user) {
    return "owned by uid " + std::to_string(st.st_uid) + ", neither root nor the user running " +
           "kdrift (uid " + std::to_string(trust.user) + ")";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) == 0) return {};
  if (sticky_ok && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0 && st.st_uid == 0) return {};
  return "writable by its group or others (mode " + octal_mode(st.st_mode) + ")";
}

Error refusal(const std::string& subject, const std::string& why, const Trust& trust) {
  return make_error(EPERM, subject + " is " + why + "; " + std::string(trust.stakes));
}

Status check_opened(int fd, const std::string& component, const std::string& path, bool last,
                    const Trust& trust) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_error(errno, path + ": stat " + component);
  std::string why =
      S_ISDIR(st.st_mode) ? untrusted(st, trust, !last || trust.sticky_holder) : "not a directory";
  if (!why.empty()) return refusal(where(component, path), why, trust);
  return ok_status();
}

Error open_failure(int code, int parent, const std::string& name, const std::string& subject,
                   const Trust& trust) {
  struct stat st {};
  if ((code == ENOTDIR || code == ELOOP) &&
      ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return make_error(ELOOP, subject +
                                 " is a symbolic link, and none is followed (give the real "
                                 "path); " +
                                 std::string(trust.stakes));
  }
  return make_error(code, subject);
}

// Walks from parent into name (component: the path walked so far, for messages), creating it
// when asked, and checks what was opened. The last component is opened for real (fsync and
// listing need it), the ones on the way O_PATH (no read permission needed to pass through).
Result<UniqueFd> enter(int parent, const std::string& name, const std::string& component,
                       const std::string& path, bool last, TrustedDir::Missing missing, mode_t mode,
                       const Trust& trust) {
  const int flags = (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  UniqueFd fd(::openat(parent, name.c_str(), flags));
  if (!fd && errno == ENOENT && missing == TrustedDir::Missing::kCreate) {
    if (::mkdirat(parent, name.c_str(), mode) == 0) {
      // Whatever the umask: a new directory left group-writable would be refused just below.
      // The parent is checked, so the name still is the directory just made.
      if (::fchmodat(parent, name.c_str(), mode, 0) != 0) {
        return make_error(errno, path + ": chmod " + component);
      }
    } else if (errno != EEXIST) {
      return make_error(errno, path + ": create " + component);
    }
    fd.reset(::openat(parent, name.c_str(), flags));
  }
  if (!fd) return open_failure(errno, parent, name, where(component, path), trust);
  if (auto checked = check_opened(fd.get(), component, path, last, trust); !checked) {
    return checked.error();
  }
  return fd;
}

}  // namespace

Result<TrustedDir> TrustedDir::open(const std::string& path, Missing missing, mode_t mode,
                                    const Trust& trust) {
  auto parts = components(path);
  if (!parts) return parts.error();
  const bool root_is_last = parts->empty();
  UniqueFd current(::open("/", (root_is_last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_CLOEXEC));
  if (!current) return make_error(errno, path + ": open /");
  if (auto checked = check_opened(current.get(), "/", path, root_is_last, trust); !checked) {
    return checked.error();
  }
  UniqueFd parent;
  std::string component;
  for (size_t i = 0; i < parts->size(); ++i) {
    component += "/" + (*parts)[i];
    auto next = enter(current.get(), (*parts)[i], component, path, i + 1 == parts->size(), missing,
                      mode, trust);
    if (!next) return next.error();
    parent = std::move(current);
    current = std::move(*next);
  }
  return TrustedDir(path, std::move(current), std::move(parent), root_is_last ? "/" : parts->back(),
                    trust);
}

std::string TrustedDir::path_of(std::string_view name) const {
  return path_ + (path_.ends_with('/') ? "" : "/") + std::string(name);
}

Result<TrustedDir> TrustedDir::subdirectory(std::string_view name, Missing missing,
                                            mode_t mode) const {
  if (auto valid = check_name(name, path_); !valid) return valid.error();
  const std::string shown = path_of(name);
  auto fd = enter(fd_.get(), std::string(name), shown, shown, true, missing, mode, trust_);
  if (!fd) return fd.error();
  UniqueFd parent(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0));
  if (!parent) return make_error(errno, "duplicate the descriptor of " + path_);
  return TrustedDir(shown, std::move(*fd), std::move(parent), std::string(name), trust_);
}

bool TrustedDir::contains(std::string_view name) const {
  struct stat st {};
  return check_name(name, path_).ok() &&
         ::fstatat(fd_.get(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

Result<std::vector<std::string>> TrustedDir::list() const {
  // A descriptor of its own: a stream over fd_ would share (and move) fd_'s offset.
  UniqueFd fd(::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return make_error(errno, "list " + path_);
  UniqueDir stream(::fdopendir(fd.get()));
  if (!stream) return make_error(errno, "list " + path_);
  (void)fd.release();  // the stream owns it now
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(stream.get())) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  if (errno != 0) return make_error(errno, "list " + path_);
  return names;
}

Result<std::string> TrustedDir::read_file(std::string_view name, size_t max_bytes) const {
  if (auto valid = check_name(name, path_); !valid) return valid.error();
  return read_whole_file_at(fd_.get(), std::string(name), path_of(name), max_bytes);
}

Result<UniqueFd> TrustedDir::open_file(std::string_view name, int flags, mode_t mode) const {
  if (auto valid = check_name(name, path_); !valid) return valid.error();
  const std::string shown = path_of(name);
  // O_NONBLOCK: a FIFO there must be refused below, not waited on.
  UniqueFd fd(::openat(fd_.get(), std::string(name).c_str(),
                       flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode));
  if (!fd) return make_error(errno, "open " + shown);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, "stat " + shown);
  if (!S_ISREG(st.st_mode)) return content_error(shown + " is not a regular file");
  return fd;
}

Result<UniqueFd> TrustedDir::open_trusted_file(std::string_view name) const {
  auto fd = open_file(name, O_RDONLY | O_NOCTTY);
  if (!fd && fd.error().code == ELOOP) {
    return open_failure(ELOOP, fd_.get(), std::string(name), path_of(name), trust_);
  }
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return make_error(errno, "stat " + path_of(name));
  if (const std::string why = untrusted(st, trust_, false); !why.empty()) {
    return refusal(path_of(name), why, trust_);
  }
  return fd;
}

Status TrustedDir::replace_file(std::string_view name, std::string_view content,
                                mode_t mode) const {
  if (auto valid = check_name(name, path_); !valid) return valid.error();
  return write_file_atomically_at(fd_.get(), std::string(name), path_of(name), content, mode);
}

Status TrustedDir::remove_file(std::string_view name) const {
  if (auto valid = check_name(name, path_); !valid) return valid.error();
  if (::unlinkat(fd_.get(), std::string(name).c_str(), 0) != 0 && errno != ENOENT) {
    return make_error(errno, "remove " + path_of(name));
  }
  return ok_status();
}

Status TrustedDir::sync() const {
  if (::fsync(fd_.get()) != 0) return make_error(errno, "fsync directory " + path_);
  return ok_status();
}

Status TrustedDir::remove_if_empty() const {
  if (!parent_) return make_error(EBUSY, "remove " + path_);
  if (::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR) != 0 && errno != ENOTEMPTY &&
      errno != EEXIST && errno != ENOENT) {
    return make_error(errno, "remove " + path_);
  }
  return ok_status();
}

}  // namespace kdrift
