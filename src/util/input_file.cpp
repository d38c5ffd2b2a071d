#include "util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "util/unique_fd.h"
#include "util/units.h"

namespace kdrift {
namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The limit holds on what is read, not on what fstat said: a file may grow after it.
Result<std::string> read_all(int fd, const std::string& name, size_t max_bytes) {
  auto content = read_descriptor(fd, max_bytes);
  if (content) return content;
  if (content.error().code == EFBIG) return size_limit_error(name, max_bytes);
  return make_error(content.error().code, "cannot read " + name);
}

}  // namespace

Result<std::string> read_descriptor(int fd, size_t max_bytes, AtLimit at_limit, FileEnd end) {
  constexpr size_t kPage = 4096;  // the smallest page Linux has: an attribute below it is whole
  std::string content;
  char buffer[65536];
  for (;;) {
    const size_t wanted = at_limit == AtLimit::kStop
                              ? std::min(sizeof buffer, max_bytes - content.size())
                              : sizeof buffer;
    if (wanted == 0) return content;
    const ssize_t n = ::read(fd, buffer, wanted);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(errno, "");
    if (n == 0) return content;
    const auto got = static_cast<size_t>(n);
    if (content.size() + got > max_bytes) return make_error(EFBIG, "");
    const bool first = content.empty();
    content.append(buffer, got);
    if (end == FileEnd::kAtShortFirstPage && first && got < kPage && got < wanted) return content;
  }
}

Error size_limit_error(const std::string& source, size_t max_bytes) {
  return make_error(EFBIG, source + ": over the " + format_size(max_bytes) + " size limit");
}

namespace {

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
// descriptor is refused below before anything is read from it.
constexpr int kReadFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

// A descriptor just opened (or not: errno says why), read whole when it is a regular file.
Result<std::string> read_opened(UniqueFd fd, const std::string& shown, size_t max_bytes) {
  if (!fd) {
    const int code = errno;
    return make_error(code, "cannot open " + shown);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, "cannot stat " + shown);
  if (!S_ISREG(st.st_mode)) {
    return content_error(shown + ": " + file_kind(st.st_mode) + ", not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return size_limit_error(shown, max_bytes);
  return read_all(fd.get(), shown, max_bytes);
}

}  // namespace

Result<std::string> read_whole_file(const std::string& path, size_t max_bytes) {
  if (path == "-") return read_all(STDIN_FILENO, "standard input", max_bytes);
  return read_opened(UniqueFd(::open(path.c_str(), kReadFlags)), path, max_bytes);
}

Result<std::string> read_whole_file_at(int directory, const std::string& name,
                                       const std::string& shown, size_t max_bytes) {
  return read_opened(UniqueFd(::openat(directory, name.c_str(), kReadFlags | O_NOFOLLOW)), shown,
                     max_bytes);
}

}  // namespace kdrift
