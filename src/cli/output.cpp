#include "cli/output.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/atomic_file.h"
#include "util/fatal.h"

namespace kdrift {

void write_output(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
        std::fflush(stdout) != 0) {
      throw FatalError("cannot write to standard output");
    }
    return;
  }
  if (auto status = write_file_atomically(path, content); !status) {
    throw FatalError("cannot write " + path + ": " + status.error().describe());
  }
}

std::string read_input(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FatalError("cannot open " + path);
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw FatalError("cannot read " + path);
  return content.str();
}

}  // namespace kdrift
