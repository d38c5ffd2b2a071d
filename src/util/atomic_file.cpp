#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {

namespace {

// What is there instead of a regular file, for the refusal.
std::string_view file_kind(mode_t mode) {
  if (S_ISBLK(mode)) return "block device";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  return "special file";
}

// Only stat, never open: opening a FIFO would block and opening a device can act on it. The
// refusal tells the user early; safety does not hang on it, because the rename replaces
// whatever name is there by then and never writes through it.
Status check_replaceable(int directory, const std::string& name, const std::string& path) {
  struct stat st {};
  if (::fstatat(directory, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? ok_status() : make_error(errno, "stat " + path);
  }
  if (S_ISREG(st.st_mode)) return ok_status();
  std::string what = "a ";
  if (S_ISLNK(st.st_mode)) {
    // Replaced, not followed; one naming a device or a directory says the user meant that, and
    // it is refused as the device or directory itself would be.
    if (::fstatat(directory, name.c_str(), &st, 0) != 0 || S_ISREG(st.st_mode)) {
      return ok_status();
    }
    what = "a symlink to a ";
  }
  return content_error(path + " is " + what + std::string(file_kind(st.st_mode)) +
                       ", not a regular file: refusing to replace it");
}

Result<std::string> random_name() {
  unsigned char bytes[8];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    return make_error(errno, "getrandom");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = ".kdrift-";
  for (const unsigned char byte : bytes) {
    name.push_back(kHex[byte >> 4]);
    name.push_back(kHex[byte & 15]);
  }
  return name + ".tmp";
}

// A new file of our own beside the destination: O_EXCL fails on anything already there, a
// planted symlink included, so a name someone guessed is skipped, never opened.
Result<std::string> create_temporary(int directory, const std::string& path, UniqueFd& fd) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto name = random_name();
    if (!name) return name.error();
    fd.reset(::openat(directory, name->c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd) return name;
    if (errno != EEXIST) return make_error(errno, "create a temporary file for " + path);
  }
  return make_error(EEXIST, "create a temporary file for " + path);
}

Status write_all(int fd, std::string_view content) {
  size_t written = 0;
  while (written < content.size()) {
    const auto n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(errno, "write");
    written += static_cast<size_t>(n);
  }
  return ok_status();
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode) {
  const auto slash = path.rfind('/');
  const std::string directory_path =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    return make_error(EISDIR, "write " + path);
  }
  UniqueFd directory(::open(directory_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory) return make_error(errno, "open directory " + directory_path);
  return write_file_atomically_at(directory.get(), name, path, content, mode);
}

Status write_file_atomically_at(int directory, const std::string& name, const std::string& shown,
                                std::string_view content, mode_t mode) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return make_error(EISDIR, "write " + shown);
  }
  if ((mode & ~mode_t{0777}) != 0)
    return make_error(EINVAL, "write " + shown + ": mode beyond 0777");
  if (auto replaceable = check_replaceable(directory, name, shown); !replaceable) {
    return replaceable;
  }
  UniqueFd fd;
  auto temp = create_temporary(directory, shown, fd);
  if (!temp) return temp.error();
  const auto discard = [&](int code, const std::string& what) {
    ::unlinkat(directory, temp->c_str(), 0);
    return make_error(code, what + " " + *temp + " beside " + shown);
  };
  if (auto written = write_all(fd.get(), content); !written) {
    return discard(written.error().code, "write");
  }
  // fchmod, not the mode given to openat: the umask must not decide who reads a report.
  if (::fchmod(fd.get(), mode) != 0) return discard(errno, "chmod");
  if (::fsync(fd.get()) != 0) return discard(errno, "fsync");
  if (::close(fd.release()) != 0) return discard(errno, "close");
  if (::renameat(directory, temp->c_str(), directory, name.c_str()) != 0) {
    return discard(errno, "rename to " + shown + " from");
  }
  if (::fsync(directory) != 0) return make_error(errno, "fsync the directory of " + shown);
  return ok_status();
}

Result<mode_t> parse_file_mode(std::string_view octal) {
  const auto refused = [&](const std::string& why) {
    return content_error("mode " + quote_value(octal) + ": " + why);
  };
  if (octal.empty() || octal.size() > 4 || octal.find_first_not_of("01234567") != octal.npos) {
    return refused("not an octal mode such as 0600 or 640");
  }
  mode_t mode = 0;
  for (const char digit : octal)
    mode = mode * 8 + static_cast<mode_t>(digit - '0');
  if ((mode & ~mode_t{0777}) != 0) return refused("setuid, setgid and sticky bits are refused");
  return mode;
}

}  // namespace kdrift
