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

void add_mode_option(CLI::App& command, mode_t& mode) {
  command
      .add_option_function<std::string>(
          "--mode",
          [&mode](const std::string& text) {
            auto parsed = parse_file_mode(text);
            if (!parsed) throw CLI::ValidationError("--mode", parsed.error().describe());
            mode = *parsed;
          },
          "Permissions of the file written, in octal (default 0600: it names hosts and serials)")
      ->type_name("OCTAL");
}

void write_output(const std::string& path, std::string_view content, mode_t mode) {
  if (path.empty() || path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
        std::fflush(stdout) != 0) {
      throw FatalError("cannot write to standard output");
    }
    return;
  }
  if (auto status = write_file_atomically(path, content, mode); !status) {
    throw FatalError("cannot write " + path + ": " + status.error().describe() +
                     " (-o - writes to standard output)");
  }
}

}  // namespace kdrift
