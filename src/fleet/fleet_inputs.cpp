#include "fleet/fleet_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>

#include "util/input_file.h"

namespace kdrift {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_snapshot_name(std::string_view name) {
  return (ends_with(name, ".json.gz") || ends_with(name, ".json")) && !name.starts_with(".");
}

std::string host_of(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (const std::string_view suffix : {".json.gz", ".json", ".gz"}) {
    if (ends_with(name, suffix) && name.size() > suffix.size()) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  return std::string(name);
}

// The regular snapshot files directly inside a directory, by name.
Result<std::vector<std::string>> snapshot_entries(int fd, const std::string& path) {
  const int listing = ::dup(fd);
  if (listing < 0) return make_error(errno, path);
  UniqueDir dir(::fdopendir(listing));
  if (!dir) {
    ::close(listing);
    return make_error(errno, path);
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    if (!is_snapshot_name(name)) continue;
    struct stat st {};
    if (::fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
      names.emplace_back(name);
    }
    errno = 0;
  }
  if (errno != 0) return make_error(errno, path);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<Error> add_directory(const std::string& path, std::size_t max_hosts,
                                   std::vector<FleetInput>& inputs) {
  const int opened = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (opened < 0) return make_error(errno, path);
  auto fd = std::make_shared<const UniqueFd>(opened);
  auto names = snapshot_entries(fd->get(), path);
  if (!names) return names.error();
  const std::string prefix = path.ends_with('/') ? path : path + "/";
  for (const auto& name : *names) {
    if (inputs.size() >= max_hosts) break;
    inputs.push_back({host_of(name), prefix + name, path, fd, name, UniqueFd()});
  }
  return std::nullopt;
}

// Every input keeps its snapshot open from its first read to the end of the run: the soft limit
// on open files is raised to hold them all, and the hard one too where it is lower (root).
std::optional<Error> reserve_descriptors(std::size_t inputs, std::size_t directories) {
  constexpr rlim_t kSpare = 64;  // standard streams, rules, output, what libraries open
  const rlim_t needed = static_cast<rlim_t>(inputs + directories) + kSpare;
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return make_error(errno, "getrlimit(RLIMIT_NOFILE)");
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return std::nullopt;
  const bool hard_enough = limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= needed;
  const struct rlimit raised { needed, hard_enough ? limit.rlim_max : needed };
  if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) return std::nullopt;
  return content_error(
      std::to_string(inputs) +
      " snapshots stay open while kdrift fleet reads them, more than the open-file "
      "limit allows (RLIMIT_NOFILE " +
      std::to_string(limit.rlim_cur) + ", hard limit " + std::to_string(limit.rlim_max) +
      "): raise it (ulimit -n) or give fewer");
}

// The snapshot's file, refused unless it is a regular one.
Result<UniqueFd> open_snapshot(const FleetInput& input) {
  // O_NONBLOCK: a FIFO would otherwise wait for a writer; it is refused below, unread. Below a
  // directory, O_NOFOLLOW: the listing saw a regular file, a link put in its place is not followed.
  constexpr int kFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  UniqueFd fd(input.directory_fd == nullptr
                  ? ::open(input.file.c_str(), kFlags)
                  : ::openat(input.directory_fd->get(), input.entry.c_str(), kFlags | O_NOFOLLOW));
  if (!fd) return make_error(errno, input.file);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, input.file);
  if (!S_ISREG(st.st_mode)) return content_error(input.file + ": not a regular file");
  return fd;
}

}  // namespace

Result<std::vector<FleetInput>> fleet_inputs(const std::vector<std::string>& arguments,
                                             std::size_t max_hosts) {
  std::vector<FleetInput> inputs;
  for (const auto& argument : arguments) {
    struct stat st {};
    if (::stat(argument.c_str(), &st) != 0) return make_error(errno, argument);
    if (S_ISDIR(st.st_mode)) {
      if (auto failed = add_directory(argument, max_hosts + 1, inputs)) return *failed;
    } else {
      inputs.push_back({host_of(argument), argument, "", nullptr, "", UniqueFd()});
    }
    if (inputs.size() > max_hosts) {
      return content_error("more than " + std::to_string(max_hosts) +
                           " snapshots: kdrift fleet reads at most that many in one run");
    }
  }
  std::map<std::string, const FleetInput*> seen;
  for (const auto& input : inputs) {
    const auto [found, inserted] = seen.emplace(input.host, &input);
    if (!inserted) {
      return content_error("host " + input.host + " is given twice (" + found->second->file +
                           " and " + input.file + "): one snapshot a host");
    }
  }
  if (auto failed = reserve_descriptors(inputs.size(), arguments.size())) return *failed;
  return inputs;
}

Result<Json> read_fleet_input(FleetInput& input, const JsonMemberFilter* keep) {
  if (!input.snapshot) {
    auto opened = open_snapshot(input);
    if (!opened) return opened.error();
    input.snapshot = std::move(*opened);
  } else if (::lseek(input.snapshot.get(), 0, SEEK_SET) != 0) {
    return make_error(errno, input.file);
  }
  auto bytes = read_descriptor(input.snapshot.get(), kMaxSnapshotTextBytes);
  if (!bytes) {
    if (bytes.error().code == EFBIG) return size_limit_error(input.file, kMaxSnapshotTextBytes);
    return make_error(bytes.error().code, input.file);
  }
  return read_snapshot_text(*bytes, input.file, keep);
}

bool group_pattern_matches(const std::string& pattern, const FleetInput& input) {
  std::string trimmed = pattern;
  while (trimmed.size() > 1 && trimmed.ends_with('/'))
    trimmed.pop_back();
  std::string directory = input.directory;
  while (directory.size() > 1 && directory.ends_with('/'))
    directory.pop_back();
  return ::fnmatch(trimmed.c_str(), input.host.c_str(), 0) == 0 ||
         ::fnmatch(trimmed.c_str(), input.file.c_str(), 0) == 0 ||
         (!directory.empty() && directory == trimmed);
}

}  // namespace kdrift
