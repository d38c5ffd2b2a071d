#include "kbuild/kernel_build.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "kbuild/base_config.h"
#include "kbuild/build_estimate.h"
#include "kbuild/build_log.h"
#include "kbuild/tree_paths.h"
#include "util/atomic_file.h"
#include "util/input_file.h"
#include "util/process.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A build command's "this candidate cannot be built", as for git bisect run.
constexpr int kExitCannotBuild = 125;
// Below this much free space on the output's filesystem, a failed build is a full disk.
constexpr std::uint64_t kFullDiskBytes = std::uint64_t{64} << 20;
// A kernel release is one short word ("6.1.0-rc3-00042-gabcdef012345").
constexpr size_t kMaxReleaseLength = 128;
constexpr size_t kMaxReleaseFileBytes = 4096;

// The source must be a directory and the output outside it (a checkout cleans every file git
// does not track), created if missing; then the log.
Result<BuildLog> prepare(const BuildRequest& request) {
  struct stat status {};
  if (::stat(request.source.c_str(), &status) != 0) return make_error(errno, request.source);
  if (!S_ISDIR(status.st_mode)) return make_error(ENOTDIR, request.source);
  if (request.output.empty()) return content_error("no build output directory given");
  const std::string source = canonical_path(request.source);
  const std::string output = canonical_path(request.output);
  if (is_within(output, source)) {
    return content_error("the build output " + output + " must lie outside the source " + source +
                         ", which is cleaned of untracked files between candidates");
  }
  std::error_code error;
  fs::create_directories(output, error);
  if (error) return make_error(error.value(), output);
  return BuildLog::create(request.log_path);
}

// The image make leaves in O=/arch/<arch>/boot/, empty when there is none.
std::string find_image(const std::string& output, const std::string& target) {
  std::error_code error;
  for (fs::directory_iterator arch(output + "/arch", error), end; !error && arch != end;
       arch.increment(error)) {
    const fs::path image = arch->path() / "boot" / target;
    if (fs::is_regular_file(image, error)) return image.string();
  }
  return {};
}

bool is_release_text(std::string_view text) {
  if (text.empty() || text.size() > kMaxReleaseLength) return false;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view("._+~-").find(c) != std::string_view::npos;
    if (!plain) return false;
  }
  return true;
}

// O=/include/config/kernel.release, which the build writes: nullopt when it is absent,
// an error when it is not a release.
Result<std::optional<std::string>> read_release(const std::string& output) {
  const std::string path = output + "/include/config/kernel.release";
  auto text = read_whole_file(path, kMaxReleaseFileBytes);
  if (!text && text.error().code == ENOENT) return std::optional<std::string>();
  if (!text) return text.error();
  const std::string_view release = trim(*text);
  if (!is_release_text(release)) {
    return content_error(path + " holds " + quote_value(release) + ", not a kernel release");
  }
  return std::optional<std::string>(std::string(release));
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What a step that did not succeed makes of the build: a full disk is kdrift's problem, not
// the candidate's (an error, no skip); otherwise a failure or a timeout, with the log's end.
Result<BuildResult> unfinished(BuildResult result, const ProcessResult& step,
                               const std::string& what, const BuildLog& log,
                               const BuildRequest& request) {
  const std::string tail = log.tail();
  const auto free_bytes = free_disk_bytes(request.output);
  if ((free_bytes && *free_bytes < kFullDiskBytes) ||
      tail.find("No space left on device") != std::string::npos) {
    return make_error(ENOSPC, what + " ran out of disk space in " + request.output + " (" +
                                  (free_bytes ? describe_bytes(*free_bytes) : "unknown") +
                                  " free; log " + log.path() + ")");
  }
  if (step.timed_out) {
    result.outcome = BuildResult::Outcome::kTimedOut;
    result.why = what + " did not finish within the build's " +
                 std::to_string(request.timeout.count()) + " s";
  } else {
    result.outcome = BuildResult::Outcome::kFailed;
    result.why = what + (step.exit_status == kExitCannotBuild
                             ? " cannot build this candidate (exit 125)"
                             : " failed (exit " + std::to_string(step.exit_status) + ")");
  }
  result.why += "; the end of " + log.path() + ":\n" + tail;
  return result;
}

int jobs_for(const BuildRequest& request) {
  return request.jobs > 0 ? request.jobs : available_cores();
}

// make's words before each step's: the source, the output and the compiler.
std::vector<std::string> make_command(const std::string& make, const BuildRequest& request,
                                      bool ccache) {
  std::vector<std::string> words = {make, "-C", request.source, "O=" + request.output};
  if (ccache) words.emplace_back("CC=ccache gcc");
  return words;
}

std::vector<std::vector<std::string>> make_steps(const BuildRequest& request) {
  std::vector<std::vector<std::string>> steps = {{"olddefconfig"}};
  if (request.localmodconfig) steps.push_back({"localmodconfig"});
  std::vector<std::string> build = {"-j" + std::to_string(jobs_for(request)), request.target};
  if (request.modules) build.emplace_back("modules");
  steps.push_back(std::move(build));
  return steps;
}

// ccache hashes the absolute paths a compile names, and every bisect has a state directory of
// its own: relative to the directory holding both the source and the output, the second
// bisect's compiles are the first one's and hit the cache. A base directory the user chose is
// kept.
std::vector<std::pair<std::string, std::string>> ccache_environment(const BuildRequest& request) {
  if (std::getenv("CCACHE_BASEDIR") != nullptr) return {};
  const std::filesystem::path source(request.source);
  const std::filesystem::path output(request.output);
  std::filesystem::path common;
  for (auto a = source.begin(), b = output.begin();
       a != source.end() && b != output.end() && *a == *b; ++a, ++b) {
    common /= *a;
  }
  if (common.empty() || common == common.root_path()) return {};
  return {{"CCACHE_BASEDIR", common.string()}, {"CCACHE_NOHASHDIR", "true"}};
}

// The tools a make build needs, looked up before anything is written.
Result<std::string> find_make(const std::string& search_path, bool localmodconfig) {
  auto make = find_program("make", search_path);
  if (!make) return make_error(ENOENT, "make (needed to build kernels; not found on PATH)");
  if (localmodconfig && !find_program("lsmod", search_path)) {
    return make_error(ENOENT, "lsmod (needed by --localmodconfig; not found on PATH)");
  }
  return *make;
}

}  // namespace

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

Result<BuildResult> MakeBuilder::build(const BuildRequest& request) {
  const auto start = Clock::now();
  auto config = read_base_config(request.base_config);
  if (!config) return config.error();
  auto make = find_make(search_path_, request.localmodconfig);
  if (!make) return make.error();
  auto log = prepare(request);
  if (!log) return log.error();
  BuildResult result;
  result.config = request.output + "/.config";
  if (auto copied = write_file_atomically(result.config, config->text, 0644); !copied) {
    return copied.error();
  }
  result.ccache = request.use_ccache && find_program("ccache", search_path_).has_value();
  log->note(std::string("compiler: ") + (result.ccache ? "ccache gcc" : "the kernel's default"));
  const std::vector<std::string> base = make_command(*make, request, result.ccache);
  ProcessOptions options;
  if (result.ccache) options.environment = ccache_environment(request);
  for (const std::vector<std::string>& step : make_steps(request)) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), step.begin(), step.end());
    auto ran = log->run(argv, options, start + request.timeout);
    if (!ran) return ran.error();
    if (ran->timed_out || ran->exit_status != 0) {
      auto done = unfinished(std::move(result), *ran, "make " + join(step, " "), *log, request);
      if (done) done->seconds = seconds_since(start);
      return done;
    }
  }
  result.seconds = seconds_since(start);
  result.image = find_image(request.output, request.target);
  const std::string built = "make " + request.target + " succeeded but ";
  if (result.image.empty()) {
    result.why = built + "left no arch/*/boot/" + request.target + " in " + request.output;
    return result;
  }
  auto release = read_release(request.output);
  if (!release || !*release) {
    result.why = built + (release ? "left no include/config/kernel.release in " + request.output
                                  : release.error().describe());
    return result;
  }
  result.release = **release;
  result.outcome = BuildResult::Outcome::kBuilt;
  return result;
}

Result<BuildResult> CommandBuilder::build(const BuildRequest& request) {
  const auto start = Clock::now();
  if (command_.empty()) return content_error("no build command given");
  if (!request.base_config.empty()) {
    if (auto config = read_base_config(request.base_config); !config) return config.error();
  }
  auto log = prepare(request);
  if (!log) return log.error();
  ProcessOptions options;
  options.working_directory = request.source;
  options.environment = {{"KDRIFT_BUILD_SOURCE", request.source},
                         {"KDRIFT_BUILD_OUTPUT", request.output},
                         {"KDRIFT_BUILD_CONFIG", request.base_config},
                         {"KDRIFT_BUILD_JOBS", std::to_string(jobs_for(request))},
                         {"KDRIFT_BISECT_CANDIDATE", request.candidate}};
  auto ran = log->run(command_, options, start + request.timeout);
  if (!ran) return ran.error();
  BuildResult result;
  if (ran->timed_out || ran->exit_status != 0) {
    auto done = unfinished(std::move(result), *ran, "the build command", *log, request);
    if (done) done->seconds = seconds_since(start);
    return done;
  }
  result.seconds = seconds_since(start);
  result.image = find_image(request.output, request.target);
  std::error_code ignored;
  if (fs::is_regular_file(request.output + "/.config", ignored)) {
    result.config = request.output + "/.config";
  }
  auto release = read_release(request.output);
  if (!release) {
    result.why = "the build command succeeded but " + release.error().describe();
    return result;
  }
  result.release = release->value_or("");
  result.outcome = BuildResult::Outcome::kBuilt;
  return result;
}

}  // namespace kdrift
