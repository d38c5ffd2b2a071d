#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "util/unique_fd.h"

namespace kdrift {

Status write_file_atomically(const std::string& path, std::string_view content) {
  const auto slash = path.rfind('/');
  const std::string directory =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string temp = path + ".tmp.XXXXXX";
  UniqueFd fd(::mkstemp(temp.data()));
  if (!fd) return make_error(errno, "create temporary file for " + path);
  const auto discard = [&](int code, const std::string& what) {
    ::unlink(temp.c_str());
    return make_error(code, what + " " + temp);
  };
  size_t written = 0;
  while (written < content.size()) {
    const auto n = ::write(fd.get(), content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return discard(errno, "write");
    }
    written += static_cast<size_t>(n);
  }
  if (::fchmod(fd.get(), 0644) != 0) return discard(errno, "chmod");
  if (::fsync(fd.get()) != 0) return discard(errno, "fsync");
  if (::close(fd.release()) != 0) return discard(errno, "close");
  if (::rename(temp.c_str(), path.c_str()) != 0)
    return discard(errno, "rename to " + path + " from");
  UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return make_error(errno, "open directory " + directory);
  if (::fsync(dir.get()) != 0) return make_error(errno, "fsync directory " + directory);
  return ok_status();
}

}  // namespace kdrift
