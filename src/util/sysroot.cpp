#include "util/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "util/access_log.h"
#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

EntryKind kind_of_mode(mode_t mode) {
  if (S_ISLNK(mode)) return EntryKind::kSymlink;
  if (S_ISDIR(mode)) return EntryKind::kDirectory;
  if (S_ISREG(mode)) return EntryKind::kFile;
  return EntryKind::kOther;
}

std::optional<EntryKind> kind_of_dirent(unsigned char type) {
  switch (type) {
    case DT_LNK:
      return EntryKind::kSymlink;
    case DT_DIR:
      return EntryKind::kDirectory;
    case DT_REG:
      return EntryKind::kFile;
    case DT_UNKNOWN:
      return std::nullopt;
    default:
      return EntryKind::kOther;
  }
}

// As the kernel's own limit on nested symlinks: beyond this a tree has a loop.
constexpr int kMaxSymlinkHops = 40;

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string join(const std::string& dir, std::string_view name) {
  return dir == "/" ? "/" + std::string(name) : dir + "/" + std::string(name);
}

// "/a//b/./c/" -> "/a/b/c"; ".." is kept for the resolver, which must see symlinks first.
std::string normalize(std::string_view path) {
  std::string out;
  for (const auto& part : split(path, '/')) {
    if (part.empty() || part == ".") continue;
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

// A relative --root is taken from the current directory, as the user meant it.
std::string absolute_root(const std::string& root) {
  std::error_code error;
  const auto absolute = std::filesystem::absolute(root, error);
  return error ? root : absolute.lexically_normal().string();
}

}  // namespace

SysRoot::SysRoot(const std::string& root) : root_(normalize(absolute_root(root))) {
  if (!live()) load_manifest();
}

void SysRoot::load_manifest() {
  std::ifstream in(root_ + "/" + std::string(kDumpManifest));
  if (!in) return;
  const auto manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object()) return;  // a damaged manifest only loses error replay
  if (const auto it = manifest.find("errors"); it != manifest.end() && it->is_object()) {
    for (const auto& [path, code] : it->items()) {
      if (code.is_number_integer()) replayed_failures_[path] = code.get<int>();
    }
  }
  if (const auto it = manifest.find("unread"); it != manifest.end() && it->is_array()) {
    for (const auto& path : *it) {
      if (!path.is_string()) continue;
      const auto text = path.get<std::string>();
      replayed_unread_[parent_of(text)].insert(text.substr(text.rfind('/') + 1));
    }
  }
}

std::string SysRoot::under_root(const std::string& path) const {
  return live() ? path : root_ + path;
}

Error SysRoot::fail(const std::string& path, int code) const {
  if (log_ != nullptr && code != ENOENT) log_->failure(path, code);
  return make_error(code, path);
}

const int* SysRoot::replayed_failure(std::string_view path) const {
  const auto it = replayed_failures_.find(std::string(path));
  return it == replayed_failures_.end() ? nullptr : &it->second;
}

Result<std::string> SysRoot::walk(std::string resolved, std::deque<std::string> pending,
                                  bool follow_last, const std::string& context) const {
  int hops = 0;
  while (!pending.empty()) {
    const std::string name = std::move(pending.front());
    pending.pop_front();
    if (name == "..") {
      resolved = parent_of(resolved);
      continue;
    }
    const std::string candidate = join(resolved, name);
    struct stat st {};
    if (::lstat(under_root(candidate).c_str(), &st) != 0) return make_error(errno, context);
    const bool is_final = pending.empty();
    if (S_ISLNK(st.st_mode) && (!is_final || follow_last)) {
      if (++hops > kMaxSymlinkHops) return make_error(ELOOP, context);
      // Not st_size: procfs and sysfs report every symlink as 0 bytes long.
      char buffer[4096];
      const auto length = ::readlink(under_root(candidate).c_str(), buffer, sizeof buffer);
      if (length < 0) return make_error(errno, context);
      const std::string target(buffer, static_cast<size_t>(length));
      if (log_ != nullptr) log_->symlink(candidate, target);
      if (!target.empty() && target.front() == '/') resolved = "/";
      auto parts = split(target, '/');
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (!it->empty() && *it != ".") pending.push_front(std::move(*it));
      }
      continue;
    }
    if (!is_final && !S_ISDIR(st.st_mode)) return make_error(ENOTDIR, context);
    resolved = candidate;
  }
  return resolved;
}

Result<std::string> SysRoot::resolve_impl(std::string_view requested, bool follow_last) const {
  const std::string path = normalize(requested);
  if (path == "/") return path;
  const std::string parent = parent_of(path);
  std::string directory;
  if (const auto hit = resolved_dirs_.find(parent); hit != resolved_dirs_.end()) {
    directory = hit->second;
  } else {
    std::deque<std::string> parts;
    for (auto& part : split(parent, '/')) {
      if (!part.empty()) parts.push_back(std::move(part));
    }
    auto walked = walk("/", std::move(parts), /*follow_last=*/true, path);
    if (!walked) return walked.error();
    directory = *walked;
    resolved_dirs_.emplace(parent, directory);
  }
  return walk(directory, {path.substr(path.rfind('/') + 1)}, follow_last, path);
}

Result<std::string> SysRoot::resolve(std::string_view path) const {
  if (const int* code = replayed_failure(path)) return make_error(*code, std::string(path));
  return resolve_impl(path, /*follow_last=*/true);
}

Result<std::string> SysRoot::host_path(std::string_view path) const {
  auto resolved = resolve(path);
  if (!resolved) return resolved.error();
  return under_root(*resolved);
}

Result<EntryKind> SysRoot::kind(std::string_view path) const {
  auto resolved = resolve_impl(path, /*follow_last=*/false);
  if (!resolved) return resolved.error();
  struct stat st {};
  if (::lstat(under_root(*resolved).c_str(), &st) != 0) return make_error(errno, *resolved);
  if (S_ISLNK(st.st_mode) && log_ != nullptr) record_symlink(*resolved);
  return kind_of_mode(st.st_mode);
}

Result<std::string> SysRoot::link_target(std::string_view path) const {
  const std::string requested(path);
  if (const int* code = replayed_failure(path)) return make_error(*code, requested);
  auto resolved = resolve_impl(path, /*follow_last=*/false);
  if (!resolved) return resolved.error();
  char buffer[4096];
  const auto length = ::readlink(under_root(*resolved).c_str(), buffer, sizeof buffer);
  if (length < 0) return fail(requested, errno);
  std::string target(buffer, static_cast<size_t>(length));
  if (log_ != nullptr) log_->symlink(*resolved, target);
  return target;
}

Result<std::string> SysRoot::read(std::string_view path, size_t max_bytes) const {
  return read_impl(path, max_bytes, /*head_only=*/false);
}

Result<std::string> SysRoot::read_head(std::string_view path, size_t max_bytes) const {
  return read_impl(path, max_bytes, /*head_only=*/true);
}

Result<std::string> SysRoot::read_impl(std::string_view path, size_t max_bytes,
                                       bool head_only) const {
  const std::string requested(path);
  if (const int* code = replayed_failure(path)) return make_error(*code, requested);
  auto resolved = resolve_impl(path, /*follow_last=*/true);
  if (!resolved) {
    const auto& error = resolved.error();
    const std::string normalized = normalize(path);
    const auto unread = replayed_unread_.find(parent_of(normalized));
    if (error.code == ENOENT && unread != replayed_unread_.end() &&
        unread->second.count(normalized.substr(normalized.rfind('/') + 1)) != 0) {
      return make_error(ENODATA, requested + " (listed but not read when the dump was made)");
    }
    if (error.code != ENOENT) return fail(requested, error.code);
    return error;
  }
  return read_resolved(requested, *resolved, max_bytes, head_only);
}

Result<std::string> SysRoot::read_resolved(const std::string& requested,
                                           const std::string& resolved, size_t max_bytes,
                                           bool head_only) const {
  UniqueFd fd(::open(under_root(resolved).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return fail(requested, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail(requested, errno);
  if (!S_ISREG(st.st_mode)) return make_error(EINVAL, requested + " is not a regular file");
  std::string content;
  char buffer[16384];
  while (true) {
    const size_t wanted =
        head_only ? std::min(sizeof buffer, max_bytes - content.size()) : sizeof buffer;
    if (wanted == 0) break;
    const auto got = ::read(fd.get(), buffer, wanted);
    if (got < 0) {
      if (errno == EINTR) continue;
      return fail(requested, errno);
    }
    if (got == 0) break;
    if (content.size() + static_cast<size_t>(got) > max_bytes) {
      return fail(requested, EFBIG);
    }
    content.append(buffer, static_cast<size_t>(got));
  }
  if (log_ != nullptr) log_->file(resolved, content);
  return content;
}

Result<std::string> SysRoot::read_value(std::string_view path) const {
  auto content = read(path);
  if (!content) return content.error();
  return std::string(trim(*content));
}

Result<std::vector<std::string>> SysRoot::list(std::string_view path) const {
  auto entries = list_entries(path);
  if (!entries) return entries.error();
  std::vector<std::string> names;
  names.reserve(entries->size());
  for (auto& entry : *entries)
    names.push_back(std::move(entry.name));
  return names;
}

Result<std::vector<DirEntry>> SysRoot::list_entries(std::string_view path) const {
  const std::string requested(path);
  if (const int* code = replayed_failure(path)) return make_error(*code, requested);
  auto resolved = resolve_impl(path, /*follow_last=*/true);
  if (!resolved) {
    if (resolved.error().code != ENOENT) return fail(requested, resolved.error().code);
    return resolved.error();
  }
  const std::string directory = under_root(*resolved);
  UniqueDir dir(::opendir(directory.c_str()));
  if (!dir) return fail(requested, errno);
  std::vector<DirEntry> entries;
  errno = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (!live() && *resolved == "/" && name == kDumpManifest) continue;
    auto kind = kind_of_dirent(entry->d_type);
    if (!kind) {
      // Filesystems without d_type (some overlay and network mounts) need the lstat.
      struct stat st {};
      const std::string child = directory + "/" + std::string(name);
      kind = ::lstat(child.c_str(), &st) == 0 ? kind_of_mode(st.st_mode) : EntryKind::kOther;
    }
    entries.push_back({std::string(name), *kind});
    errno = 0;
  }
  if (errno != 0) return fail(requested, errno);
  if (const auto unread = replayed_unread_.find(*resolved); unread != replayed_unread_.end()) {
    for (const auto& name : unread->second)
      entries.push_back({name, EntryKind::kFile});
  }
  std::sort(entries.begin(), entries.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const DirEntry& a, const DirEntry& b) { return a.name == b.name; }),
                entries.end());
  if (log_ != nullptr) record_listing(*resolved, entries);
  return entries;
}

void SysRoot::record_symlink(const std::string& resolved) const {
  char target[4096];
  const auto length = ::readlink(under_root(resolved).c_str(), target, sizeof target);
  if (length >= 0) log_->symlink(resolved, std::string(target, static_cast<size_t>(length)));
}

void SysRoot::record_listing(const std::string& resolved,
                             const std::vector<DirEntry>& entries) const {
  log_->directory(resolved);
  for (const auto& entry : entries) {
    const std::string child = join(resolved, entry.name);
    struct stat st {};
    if (::lstat(under_root(child).c_str(), &st) != 0) {
      // A name a dump listed without reading it stays listed in a dump of that dump.
      log_->listed_file(child);
      continue;
    }
    if (S_ISLNK(st.st_mode)) {
      record_symlink(child);
    } else if (S_ISDIR(st.st_mode)) {
      log_->directory(child);
    } else {
      log_->listed_file(child);
    }
  }
}

Result<std::string> SysRoot::read_kmsg() const {
  if (!kmsg_) kmsg_ = live() ? read_live_kmsg() : read("/dev/kmsg");
  return *kmsg_;
}

Result<std::string> SysRoot::read_shared(std::string_view path, size_t head_bytes) const {
  auto key = std::make_pair(std::string(path), head_bytes);
  auto cached = shared_reads_.find(key);
  if (cached == shared_reads_.end()) {
    auto content = head_bytes == 0 ? read(path) : read_head(path, head_bytes);
    cached = shared_reads_.emplace(std::move(key), std::move(content)).first;
  }
  return cached->second;
}

Result<std::string> SysRoot::read_live_kmsg() const {
  constexpr size_t max_bytes = kDefaultMaxBytes;
  UniqueFd fd(::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return fail("/dev/kmsg", errno);
  std::string records;
  char buffer[8192];  // one record per read(); the kernel caps a record below this
  while (true) {
    const auto got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR || errno == EPIPE) continue;  // EPIPE: a record was overwritten
      if (errno == EAGAIN) break;
      return fail("/dev/kmsg", errno);
    }
    if (got == 0) break;
    if (records.size() + static_cast<size_t>(got) > max_bytes) break;  // keep the oldest part
    records.append(buffer, static_cast<size_t>(got));
  }
  if (log_ != nullptr) log_->file("/dev/kmsg", records);
  return records;
}

}  // namespace kdrift
