#include "fleet/fleet_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
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
    inputs.push_back({host_of(name), prefix + name, path, fd, name});
  }
  return std::nullopt;
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
      inputs.push_back({host_of(argument), argument, "", nullptr, ""});
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
  return inputs;
}

Result<Json> read_fleet_input(const FleetInput& input, const JsonMemberFilter* keep) {
  if (input.directory_fd == nullptr) {
    auto bytes = read_whole_file(input.file, kMaxSnapshotTextBytes);
    if (!bytes) return bytes.error();
    return read_snapshot_text(*bytes, input.file, keep);
  }
  // O_NOFOLLOW: the listing saw a regular file; a link put in its place since is not followed.
  const int opened = ::openat(input.directory_fd->get(), input.entry.c_str(),
                              O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (opened < 0) return make_error(errno, input.file);
  const UniqueFd fd(opened);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, input.file);
  if (!S_ISREG(st.st_mode)) return content_error(input.file + ": not a regular file");
  auto bytes = read_descriptor(fd.get(), kMaxSnapshotTextBytes);
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
