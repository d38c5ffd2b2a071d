#pragma once
// A candidate's build log: each step's command line, then everything the step wrote, in order;
// kept in the bisect's state directory beside the candidate's config, and the source of the
// lines that explain a failed build.

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/process.h"
#include "util/result.h"
#include "util/unique_fd.h"

namespace kdrift {

class BuildLog {
 public:
  // Created or truncated at path, mode 0600, never through a symlink; anything but a regular
  // file at path is refused. Errors name path.
  static Result<BuildLog> create(const std::string& path);

  const std::string& path() const { return path_; }

  // A line of kdrift's own between the steps' output ("==> make -C ... olddefconfig").
  void note(std::string_view line) const;

  // The log's last lines, at most max_lines within the last max_bytes: the log holds what the
  // build printed (compiler messages quoting the source), untrusted text.
  std::string tail(size_t max_lines = 20, size_t max_bytes = 4096) const;

  // Runs argv (no shell) with its stdout and stderr appended to the log, after a note of its
  // command line, bounded by deadline (a deadline already past runs nothing and times out).
  // options' capture and output descriptor are the log's; the rest (environment, directory) the
  // caller's. Errors: the program could not be run at all.
  Result<ProcessResult> run(const std::vector<std::string>& argv, ProcessOptions options,
                            std::chrono::steady_clock::time_point deadline) const;

 private:
  BuildLog(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}

  std::string path_;
  UniqueFd fd_;  // read-write and appending: steps write through it, tail reads back
};

}  // namespace kdrift
