#include "kbuild/config_normalizer.h"

#include <chrono>
#include <utility>

#include "util/atomic_file.h"
#include "util/process.h"

namespace kdrift {
namespace {

// make's last words say why olddefconfig failed; the rest is the Makefile's chatter.
constexpr size_t kKeptOutputBytes = 2048;

}  // namespace

MakeNormalizer::MakeNormalizer(std::string source_tree, std::string scratch_dir,
                               std::vector<std::string> make_arguments)
    : source_tree_(std::move(source_tree)),
      scratch_dir_(std::move(scratch_dir)),
      make_arguments_(std::move(make_arguments)) {}

Result<Kconfig> MakeNormalizer::normalize(const Kconfig& config) {
  const std::string path = scratch_dir_ + "/.config";
  if (auto written = write_file_atomically(path, config.text(), 0644); !written) {
    return written.error();
  }
  std::vector<std::string> argv = {"make", "-C", source_tree_, "O=" + scratch_dir_};
  argv.insert(argv.end(), make_arguments_.begin(), make_arguments_.end());
  argv.emplace_back("olddefconfig");
  ProcessOptions options;
  options.capture_output = true;
  options.max_output_bytes = kKeptOutputBytes;
  // olddefconfig takes seconds; a make that hangs must not hold the bisect's start forever.
  options.timeout = std::chrono::minutes(10);
  auto ran = run_process(argv, options);
  if (!ran) return ran.error();
  if (ran->exit_status != 0) {
    return content_error(shell_quoted(argv) + " failed with exit status " +
                         std::to_string(ran->exit_status) + ": " +
                         (ran->output_truncated ? "..." : "") + ran->output);
  }
  return Kconfig::read(path);
}

}  // namespace kdrift
