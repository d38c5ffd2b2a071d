#include "bisect/kexec_image.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "util/text.h"

namespace kdrift {
namespace {

constexpr const char* kSymlink = "a symbolic link (name the image by its real path)";

std::string owner_text(uid_t uid) {
  std::string text = "uid " + std::to_string(uid);
  if (const passwd* entry = ::getpwuid(uid); entry != nullptr) {
    text += " (" + std::string(entry->pw_name) + ")";
  }
  return text;
}

// Why whoever owns or may write the entry status describes could swap the image, or empty.
std::string distrust(const struct stat& status, uid_t trusted_uid) {
  if (status.st_uid != 0 && status.st_uid != trusted_uid) {
    const std::string trusted = trusted_uid == 0 ? "root" : "root or " + owner_text(trusted_uid);
    return "owned by " + owner_text(status.st_uid) + ", not by " + trusted;
  }
  // Nobody can rename or remove another's entry in a root-owned sticky directory (/tmp).
  const bool sticky = S_ISDIR(status.st_mode) && (status.st_mode & S_ISVTX) != 0;
  if (sticky && status.st_uid == 0) return {};
  if ((status.st_mode & S_IWOTH) != 0) return "writable by every user";
  if ((status.st_mode & S_IWGRP) != 0) {
    return "writable by its group (gid " + std::to_string(status.st_gid) + ")";
  }
  return {};
}

// Judges each component of one image's path, and words the errors that refuse it.
class ImageWalk {
 public:
  ImageWalk(const std::string& path, std::string_view what, uid_t trusted_uid)
      : subject_(std::string(what) + " " + path), trusted_uid_(trusted_uid) {}

  Error refused(const std::string& component, const std::string& why) const {
    return make_error(EACCES, subject_ + ": " + component + " is " + why +
                                  ": whoever can change a kexec image or a directory on its way "
                                  "chooses the kernel root boots");
  }
  Error failed(int code, const std::string& component) const {
    return make_error(code, subject_ + ": " + component);
  }
  // The error for an entry that is not what it must be.
  Status judge(const std::string& component, const struct stat& status, bool directory) const {
    if (S_ISLNK(status.st_mode)) {
      return refused(component, kSymlink);
    }
    if (directory && !S_ISDIR(status.st_mode)) return failed(ENOTDIR, component);
    if (!directory && !S_ISREG(status.st_mode)) return refused(component, "not a regular file");
    if (const std::string why = distrust(status, trusted_uid_); !why.empty()) {
      return refused(component, why);
    }
    return ok_status();
  }
  const std::string& subject() const { return subject_; }

 private:
  std::string subject_;
  uid_t trusted_uid_;
};

Result<std::vector<std::string>> path_components(const std::string& path, const ImageWalk& walk) {
  if (path.empty() || path.front() != '/') {
    return content_error(walk.subject() + ": not an absolute path (kexec images are named from /)");
  }
  std::vector<std::string> names;
  for (std::string& name : split(path, '/')) {
    if (name.empty() || name == ".") continue;
    if (name == "..") return content_error(walk.subject() + ": a \"..\" component");
    names.push_back(std::move(name));
  }
  if (names.empty()) return content_error(walk.subject() + ": names no file");
  return names;
}

Status judge_descriptor(int fd, const std::string& component, bool directory,
                        const ImageWalk& walk) {
  struct stat status {};
  if (::fstat(fd, &status) != 0) return walk.failed(errno, component);
  return walk.judge(component, status, directory);
}

}  // namespace

Result<UniqueFd> open_kexec_image(const std::string& path, std::string_view what,
                                  uid_t trusted_uid) {
  const ImageWalk walk(path, what, trusted_uid);
  auto names = path_components(path, walk);
  if (!names) return names.error();
  UniqueFd directory(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!directory) return walk.failed(errno, "/");
  if (auto root = judge_descriptor(directory.get(), "/", true, walk); !root) return root.error();
  std::string walked;
  for (size_t i = 0; i + 1 < names->size(); ++i) {
    walked += "/" + (*names)[i];
    // O_PATH|O_NOFOLLOW opens a symlink itself, so that fstat sees it and refuses it.
    UniqueFd next(::openat(directory.get(), (*names)[i].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next) return walk.failed(errno, walked);
    if (auto judged = judge_descriptor(next.get(), walked, true, walk); !judged) {
      return judged.error();
    }
    directory = std::move(next);
  }
  walked += "/" + names->back();
  // Non-blocking and no controlling terminal: a FIFO or a tty must neither hang nor attach
  // before fstat refuses it.
  UniqueFd file(::openat(directory.get(), names->back().c_str(),
                         O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!file && errno == ELOOP) return walk.refused(walked, kSymlink);
  if (!file) return walk.failed(errno, walked);
  if (auto judged = judge_descriptor(file.get(), walked, false, walk); !judged) {
    return judged.error();
  }
  return file;
}

Result<KexecFiles> open_kexec_files(const std::string& kernel, const std::string& initrd,
                                    uid_t trusted_uid) {
  if (kernel.empty()) return content_error("no kernel image given");
  KexecFiles files;
  auto kernel_fd = open_kexec_image(kernel, "kernel", trusted_uid);
  if (!kernel_fd) return kernel_fd.error();
  files.kernel = std::move(*kernel_fd);
  if (initrd.empty()) return files;
  auto initrd_fd = open_kexec_image(initrd, "initrd", trusted_uid);
  if (!initrd_fd) return initrd_fd.error();
  files.initrd = std::move(*initrd_fd);
  return files;
}

}  // namespace kdrift
