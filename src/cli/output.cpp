#include "cli/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "util/atomic_file.h"
#include "util/fatal.h"
#include "util/unique_fd.h"

namespace kdrift {

void write_output(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
        std::fflush(stdout) != 0) {
      throw FatalError("cannot write to standard output");
    }
    return;
  }
  // A device or pipe (/dev/null, a fifo) is written in place: renaming a temporary file over it
  // would replace the device node.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd) throw FatalError("cannot open " + path);
    size_t written = 0;
    while (written < content.size()) {
      const auto n = ::write(fd.get(), content.data() + written, content.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw FatalError("cannot write " + path);
      written += static_cast<size_t>(n);
    }
    return;
  }
  if (auto status = write_file_atomically(path, content); !status) {
    throw FatalError("cannot write " + path + ": " + status.error().describe());
  }
}

}  // namespace kdrift
