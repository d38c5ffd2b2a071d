#include "util/sysroot.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "util/access_log.h"
#include "util/bounded_json.h"
#include "util/budgeted_backend.h"
#include "util/directory_backend.h"
#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

// As the kernel's own limit on nested symlinks: beyond this a tree has a loop.
constexpr int kMaxSymlinkHops = 40;

// {"errors": {path: errno}, "unread": [path]}: a dump of a large host names a few thousand paths.
constexpr JsonLimits kManifestLimits{/*max_depth=*/4, /*max_values=*/1'000'000};

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
  if (live()) {
    backend_ = DirectoryBackend::host();
    return;
  }
  budget_ = std::make_shared<BudgetedBackend>(std::make_shared<DirectoryBackend>(root_), root_);
  backend_ = budget_;
  load_manifest();
}

SysRoot::SysRoot(std::string name, std::shared_ptr<const SysRootBackend> backend)
    : root_(std::move(name)),
      budget_(std::make_shared<BudgetedBackend>(std::move(backend), root_)),
      backend_(budget_) {
  load_manifest();
}

Status SysRoot::within_budget() const {
  return budget_ ? budget_->within_budget() : ok_status();
}

void SysRoot::load_manifest() {
  const auto text =
      backend_->read("/" + std::string(kDumpManifest), kDefaultMaxBytes, ReadExtent::kWhole);
  if (!text) return;
  // The manifest is as untrusted as the rest of the dump: its shape is two levels deep.
  const auto parsed = parse_bounded_json(*text, std::string(kDumpManifest), kManifestLimits);
  if (!parsed) return;  // a damaged manifest only loses error replay
  const auto& manifest = *parsed;
  if (!manifest.is_object()) return;
  const auto complete = manifest.find("complete");
  complete_dump_ = complete == manifest.end() || *complete == true;
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

Error SysRoot::fail(const std::string& path, int code) const {
  if (log_ != nullptr && code != ENOENT) log_->failure(path, code);
  return make_error(code, path);
}

const int* SysRoot::replayed_failure(std::string_view path) const {
  const auto it = replayed_failures_.find(std::string(path));
  return it == replayed_failures_.end() ? nullptr : &it->second;
}

Result<std::string> SysRoot::walk(std::string resolved, std::deque<std::string> pending,
                                  Walk walk_to, const std::string& context) const {
  const bool follow_last = walk_to != Walk::kLastUnfollowed;
  int hops = 0;
  while (!pending.empty()) {
    const std::string name = std::move(pending.front());
    pending.pop_front();
    if (name == "..") {
      resolved = parent_of(resolved);
      continue;
    }
    std::string candidate = join(resolved, name);
    const bool is_final = pending.empty();
    // A directory already walked to is not looked up again: symbolic links into /sys/devices
    // share their first components, and each of those was one lstat per link followed.
    if (!is_final || walk_to != Walk::kLastUnfollowed) {
      if (const auto hit = resolved_dirs_.find(candidate); hit != resolved_dirs_.end()) {
        resolved = hit->second;
        continue;
      }
    }
    const auto kind = cached_kind(candidate);
    if (!kind) return make_error(kind.error().code, context);
    if (*kind == EntryKind::kSymlink && (!is_final || follow_last)) {
      if (++hops > kMaxSymlinkHops) return make_error(ELOOP, context);
      const auto target = cached_link_target(candidate);
      if (!target) return make_error(target.error().code, context);
      if (log_ != nullptr) log_->symlink(candidate, *target);
      if (!target->empty() && target->front() == '/') resolved = "/";
      auto parts = split(*target, '/');
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (!it->empty() && *it != ".") pending.push_front(std::move(*it));
      }
      continue;
    }
    if ((!is_final || walk_to == Walk::kDirectory) && *kind != EntryKind::kDirectory) {
      return make_error(ENOTDIR, context);
    }
    if (*kind == EntryKind::kDirectory) resolved_dirs_.emplace(candidate, candidate);
    resolved = std::move(candidate);
  }
  return resolved;
}

// A directory or symbolic link seen once is taken as seen: the collectors ask about
// /sys/block/<disk> four ways (its kind, its target, the files in it, the device it leads to).
Result<EntryKind> SysRoot::cached_kind(const std::string& resolved) const {
  if (link_targets_.contains(resolved)) return EntryKind::kSymlink;
  if (const auto hit = resolved_dirs_.find(resolved); hit != resolved_dirs_.end()) {
    if (hit->second == resolved) return EntryKind::kDirectory;
  }
  return backend_->kind(resolved);
}

Result<std::string> SysRoot::cached_link_target(const std::string& resolved) const {
  if (const auto hit = link_targets_.find(resolved); hit != link_targets_.end()) {
    return hit->second;
  }
  auto target = backend_->link_target(resolved);
  if (target) link_targets_.emplace(resolved, *target);
  return target;
}

// Each directory is walked one step from its parent's resolution, itself cached: the files of
// /sys/block/vda/queue cost one lookup for "queue", not one for every component from "/".
Result<std::string> SysRoot::resolve_directory(const std::string& path) const {
  const std::string parent = parent_of(path);
  if (parent == "/") return parent;
  if (const auto hit = resolved_dirs_.find(parent); hit != resolved_dirs_.end()) return hit->second;
  auto above = resolve_directory(parent);
  if (!above) return make_error(above.error().code, path);
  auto walked = walk(*above, {parent.substr(parent.rfind('/') + 1)}, Walk::kDirectory, path);
  if (!walked) return walked.error();
  resolved_dirs_.emplace(parent, *walked);
  return walked;
}

Result<std::string> SysRoot::resolve_impl(std::string_view requested, bool follow_last) const {
  const std::string path = normalize(requested);
  if (path == "/") return path;
  auto directory = resolve_directory(path);
  if (!directory) return directory.error();
  return walk(*directory, {path.substr(path.rfind('/') + 1)},
              follow_last ? Walk::kLastFollowed : Walk::kLastUnfollowed, path);
}

Result<std::string> SysRoot::resolve(std::string_view path) const {
  if (const int* code = replayed_failure(path)) return make_error(*code, std::string(path));
  return resolve_impl(path, /*follow_last=*/true);
}

Result<std::string> SysRoot::host_path(std::string_view path) const {
  auto resolved = resolve(path);
  if (!resolved) return resolved.error();
  return backend_->host_path(*resolved);
}

Result<EntryKind> SysRoot::kind(std::string_view path) const {
  auto resolved = resolve_impl(path, /*follow_last=*/false);
  if (!resolved) return resolved.error();
  auto kind = cached_kind(*resolved);
  if (!kind) return make_error(kind.error().code, *resolved);
  if (*kind == EntryKind::kSymlink && log_ != nullptr) record_symlink(*resolved);
  return kind;
}

Result<std::string> SysRoot::link_target(std::string_view path) const {
  const std::string requested(path);
  if (const int* code = replayed_failure(path)) return make_error(*code, requested);
  auto resolved = resolve_impl(path, /*follow_last=*/false);
  if (!resolved) return resolved.error();
  auto target = cached_link_target(*resolved);
  if (!target) return fail(requested, target.error().code);
  if (log_ != nullptr) log_->symlink(*resolved, *target);
  return target;
}

Result<std::string> SysRoot::read(std::string_view path, size_t max_bytes) const {
  return read_impl(path, max_bytes, ReadExtent::kWhole);
}

Result<std::string> SysRoot::read_head(std::string_view path, size_t max_bytes) const {
  return read_impl(path, max_bytes, ReadExtent::kHead);
}

Result<std::string> SysRoot::read_first_record(std::string_view path, size_t max_bytes) const {
  return read_impl(path, max_bytes, ReadExtent::kFirstRecord);
}

Result<std::string> SysRoot::read_impl(std::string_view path, size_t max_bytes,
                                       ReadExtent extent) const {
  const std::string requested(path);
  if (const int* code = replayed_failure(path)) return make_error(*code, requested);
  const std::string normalized = normalize(path);
  // Most files are read where they are named: the directory resolved once (cached), the file
  // opened as it is. The backends refuse to follow a symbolic link in the last place (ELOOP), so
  // only a file named through one is walked, and no lookup is spent asking what a file is before
  // the open that says it.
  const std::string name = normalized.substr(normalized.rfind('/') + 1);
  if (!name.empty() && name != "..") {
    auto directory = resolve_directory(normalized);
    if (directory) {
      const std::string candidate = join(*directory, name);
      auto content = backend_->read(candidate, max_bytes, extent);
      if (content || content.error().code != ELOOP) {
        if (!content && content.error().code == ENOENT) {
          return missing(requested, normalized, make_error(ENOENT, normalized));
        }
        return finish_read(requested, candidate, std::move(content));
      }
    }
  }
  auto resolved = resolve_impl(path, /*follow_last=*/true);
  if (!resolved) {
    if (resolved.error().code != ENOENT) return fail(requested, resolved.error().code);
    return missing(requested, normalized, resolved.error());
  }
  return finish_read(requested, *resolved, backend_->read(*resolved, max_bytes, extent));
}

// A file that is not there: in a dump made by kdrift, one it listed but did not read is said so.
Error SysRoot::missing(const std::string& requested, const std::string& normalized,
                       Error error) const {
  const auto unread = replayed_unread_.find(parent_of(normalized));
  if (unread != replayed_unread_.end() &&
      unread->second.count(normalized.substr(normalized.rfind('/') + 1)) != 0) {
    return make_error(ENODATA, requested + " (listed but not read when the dump was made)");
  }
  return error;
}

Result<std::string> SysRoot::finish_read(const std::string& requested, const std::string& resolved,
                                         Result<std::string> content) const {
  if (!content) {
    const int code = content.error().code;
    // Not a failure a dump records: the dump holds the directory or symlink itself.
    if (code == EINVAL) return make_error(EINVAL, requested + " is not a regular file");
    Error failure = fail(requested, code);
    // Their backends say why: whose file it is, or that an archive did not hold it.
    if (code == EACCES || code == ENODATA) failure.context = content.error().context;
    return failure;
  }
  if (log_ != nullptr) log_->file(resolved, *content);
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
  auto listed = backend_->list(*resolved);
  if (!listed) return fail(requested, listed.error().code);
  std::vector<DirEntry> entries = std::move(*listed);
  // A listing says what each entry is, as a lookup of it would: the directories in it need no
  // lookup later (/proc's processes, each then read by one file, were one lstat each).
  for (const auto& entry : entries) {
    if (entry.kind != EntryKind::kDirectory || entry.name.empty() || entry.name == "." ||
        entry.name == ".." || entry.name.find('/') != std::string::npos) {
      continue;  // an archive's listing can name anything; only a plain name is one step down
    }
    std::string directory = join(*resolved, entry.name);
    resolved_dirs_.emplace(directory, directory);
  }
  if (!live() && *resolved == "/") {
    std::erase_if(entries, [](const DirEntry& entry) { return entry.name == kDumpManifest; });
  }
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
  if (auto target = cached_link_target(resolved)) log_->symlink(resolved, *target);
}

void SysRoot::record_listing(const std::string& resolved,
                             const std::vector<DirEntry>& entries) const {
  log_->directory(resolved);
  // The kinds come from the listing: a name a dump listed without reading it is a file there,
  // and stays listed (unread) in a dump of that dump.
  for (const auto& entry : entries) {
    const std::string child = join(resolved, entry.name);
    if (entry.kind == EntryKind::kSymlink) {
      record_symlink(child);
    } else if (entry.kind == EntryKind::kDirectory) {
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
