#include "fleet/fleet_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <mutex>
#include <optional>

#include "util/input_file.h"

namespace kdrift {

// open_by_handle_at reads a handle in the file system of the descriptor it is given: one
// descriptor is held on each file system a snapshot was read from (a duplicate of the first
// snapshot read there), so a handle never needs its own file kept open.
class FileSystemAnchors {
 public:
  void hold(dev_t device, int fd) {
    const std::lock_guard lock(mutex_);
    if (anchors_.contains(device)) return;
    UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
    if (copy) anchors_.emplace(device, std::move(copy));
  }
  int anchor(dev_t device) const {
    const std::lock_guard lock(mutex_);
    const auto found = anchors_.find(device);
    return found == anchors_.end() ? -1 : found->second.get();
  }

 private:
  mutable std::mutex mutex_;
  std::map<dev_t, UniqueFd> anchors_;
};

namespace {

// O_NONBLOCK: a FIFO would otherwise wait for a writer; it is refused, unread.
constexpr int kOpenFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

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
    inputs.push_back({host_of(name), prefix + name, path, fd, name, nullptr, std::nullopt});
  }
  return std::nullopt;
}

struct OpenedSnapshot {
  UniqueFd fd;
  struct stat status;
};

// The snapshot's file by its name, refused unless it is a regular one. Below a directory,
// O_NOFOLLOW: the listing saw a regular file, a link put in its place is not followed.
Result<OpenedSnapshot> open_by_name(const FleetInput& input) {
  UniqueFd fd(
      input.directory_fd == nullptr
          ? ::open(input.file.c_str(), kOpenFlags)
          : ::openat(input.directory_fd->get(), input.entry.c_str(), kOpenFlags | O_NOFOLLOW));
  if (!fd) return make_error(errno, input.file);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, input.file);
  if (!S_ISREG(st.st_mode)) return content_error(input.file + ": not a regular file");
  return OpenedSnapshot{std::move(fd), st};
}

// The bytes of a struct file_handle for an open file, or none where its file system gives none.
std::vector<unsigned char> file_handle_of(int fd) {
  alignas(file_handle) unsigned char buffer[sizeof(file_handle) + MAX_HANDLE_SZ];
  auto* handle = reinterpret_cast<file_handle*>(buffer);
  handle->handle_bytes = MAX_HANDLE_SZ;
  int mount_id = 0;
  if (::name_to_handle_at(fd, "", handle, &mount_id, AT_EMPTY_PATH) != 0) return {};
  return {buffer, buffer + sizeof(file_handle) + handle->handle_bytes};
}

std::string first_read_gone(const FleetInput& input, std::string_view what) {
  return input.file + ": " + std::string(what) +
         " since kdrift fleet first read it; a fleet judges each snapshot as it first read it";
}

// The file of the input's first read, opened again: by its handle, else by its name.
Result<OpenedSnapshot> reopen(const FleetInput& input) {
  const SnapshotIdentity& first = *input.first_read;
  const int anchor = input.anchors == nullptr ? -1 : input.anchors->anchor(first.device);
  if (!first.handle.empty() && anchor >= 0) {
    alignas(file_handle) unsigned char buffer[sizeof(file_handle) + MAX_HANDLE_SZ];
    std::copy_n(first.handle.begin(), std::min(first.handle.size(), sizeof(buffer)), buffer);
    UniqueFd fd(::open_by_handle_at(anchor, reinterpret_cast<file_handle*>(buffer), kOpenFlags));
    if (fd) {
      struct stat st {};
      if (::fstat(fd.get(), &st) != 0) return make_error(errno, input.file);
      return OpenedSnapshot{std::move(fd), st};
    }
    // ESTALE: the inode is gone (its last name unlinked or renamed over, nothing holding it).
    if (errno == ESTALE) return content_error(first_read_gone(input, "deleted or replaced"));
    // Without CAP_DAC_READ_SEARCH (EPERM), or where handles cannot be opened: by name.
    if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL)
      return make_error(errno, input.file);
  }
  return open_by_name(input);
}

std::optional<Error> check_unchanged(const FleetInput& input, const struct stat& now) {
  const SnapshotIdentity& first = *input.first_read;
  if (now.st_dev != first.device || now.st_ino != first.inode)
    return content_error(first_read_gone(input, "replaced (another file has its name now)"));
  if (now.st_size != first.size || now.st_mtim.tv_sec != first.modified.tv_sec ||
      now.st_mtim.tv_nsec != first.modified.tv_nsec)
    return content_error(first_read_gone(input, "rewritten"));
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
      inputs.push_back({host_of(argument), argument, "", nullptr, "", nullptr, std::nullopt});
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
  const auto anchors = std::make_shared<FileSystemAnchors>();
  for (auto& input : inputs)
    input.anchors = anchors;
  return inputs;
}

Result<Json> read_fleet_input(FleetInput& input, const JsonMemberFilter* keep) {
  auto opened = input.first_read ? reopen(input) : open_by_name(input);
  if (!opened) return opened.error();
  const struct stat& st = opened->status;
  if (input.first_read) {
    if (auto changed = check_unchanged(input, st)) return *changed;
  } else {
    SnapshotIdentity identity{st.st_dev, st.st_ino, st.st_size, st.st_mtim,
                              file_handle_of(opened->fd.get())};
    if (!identity.handle.empty() && input.anchors != nullptr)
      input.anchors->hold(st.st_dev, opened->fd.get());
    input.first_read = std::move(identity);
  }
  auto bytes = read_descriptor(opened->fd.get(), kMaxSnapshotTextBytes);
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
