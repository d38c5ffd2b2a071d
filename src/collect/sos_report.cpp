#include "collect/sos_report.h"

#include <cerrno>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "collect/sos_commands.h"
#include "util/text.h"

namespace kdrift {
namespace {

// The kernel log as much as a live read of /dev/kmsg takes (SysRoot::read_kmsg).
constexpr size_t kMaxKmsgBytes = size_t{8} << 20;
// A server's sysctl -a is about 200 KB (most of it per network interface); twenty times that,
// and as many keys as could fit in it, bound what a hostile report can make us hold.
constexpr size_t kMaxSysctlBytes = size_t{4} << 20;
constexpr size_t kMaxSysctlKeys = 100'000;
constexpr size_t kMaxUnameBytes = 4096;

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

// The paths from the top down to path: "/a/b/c" -> "/a", "/a/b", "/a/b/c".
std::vector<std::string> prefixes_of(const std::string& path) {
  std::vector<std::string> prefixes;
  std::string prefix;
  for (const auto& part : split(path, '/')) {
    if (part.empty()) continue;
    prefix += "/" + part;
    prefixes.push_back(prefix);
  }
  return prefixes;
}

// The first max_bytes of a regular file reached through directories only (a command output that
// is a symlink is not sos's), cut back to its last whole line when it held more.
Result<std::string> read_output(const SysRootBackend& backend, const std::string& path,
                                size_t max_bytes) {
  const auto prefixes = prefixes_of(path);
  for (size_t i = 0; i < prefixes.size(); ++i) {
    const auto kind = backend.kind(prefixes[i]);
    if (!kind) return kind.error();
    const auto wanted = i + 1 == prefixes.size() ? EntryKind::kFile : EntryKind::kDirectory;
    if (*kind != wanted) return make_error(EINVAL, path + " is not a regular file in a directory");
  }
  auto text = backend.read(path, max_bytes, ReadExtent::kHead);
  if (text && text->size() == max_bytes) text->erase(text->rfind('\n') + 1);
  return text;
}

class SosReportBackend final : public SysRootBackend {
 public:
  explicit SosReportBackend(std::shared_ptr<const SysRootBackend> base) : base_(std::move(base)) {}

  // Adds a file at path unless the report has something there already or a made file does (the
  // first source wins), or one of path's directories is not a directory in the report.
  void add(const std::string& path, std::string content);
  const SysRootBackend& base() const { return *base_; }

  Result<EntryKind> kind(const std::string& path) const override;
  Result<std::string> link_target(const std::string& path) const override;
  Result<std::string> read(const std::string& path, size_t max_bytes,
                           ReadExtent extent) const override;
  Result<std::vector<DirEntry>> list(const std::string& path) const override;
  Result<std::string> host_path(const std::string& path) const override;

 private:
  bool made(const std::string& path) const {
    return files_.count(path) != 0 || directories_.count(path) != 0;
  }
  // Whether path is a directory of the report (false: missing; nullopt: anything else).
  std::optional<bool> base_directory(const std::string& path);

  std::shared_ptr<const SysRootBackend> base_;
  std::map<std::string, std::string> files_;                 // made files and their content
  std::set<std::string> directories_;                        // made directories the report lacks
  std::map<std::string, std::set<std::string>> made_names_;  // directory -> made entries in it
  std::set<std::string> base_directories_;                   // directories of the report seen
};

std::optional<bool> SosReportBackend::base_directory(const std::string& path) {
  if (base_directories_.count(path) != 0) return true;
  const auto kind = base_->kind(path);
  if (!kind) return kind.error().code == ENOENT ? std::optional<bool>(false) : std::nullopt;
  if (*kind != EntryKind::kDirectory) return std::nullopt;
  base_directories_.insert(path);
  return true;
}

void SosReportBackend::add(const std::string& path, std::string content) {
  if (files_.count(path) != 0) return;
  auto prefixes = prefixes_of(path);
  if (prefixes.empty()) return;
  prefixes.pop_back();
  std::vector<std::string> missing;
  for (const auto& prefix : prefixes) {
    if (!missing.empty() || directories_.count(prefix) != 0) {
      if (files_.count(prefix) != 0) return;
      missing.push_back(prefix);
      continue;
    }
    const auto exists = base_directory(prefix);
    if (!exists) return;
    if (!*exists) missing.push_back(prefix);
  }
  if (missing.empty()) {
    const auto present = base_->kind(path);
    if (present || present.error().code != ENOENT) return;
  }
  for (const auto& directory : missing) {
    if (directories_.insert(directory).second) {
      made_names_[parent_of(directory)].insert(name_of(directory));
    }
  }
  made_names_[parent_of(path)].insert(name_of(path));
  files_.emplace(path, std::move(content));
}

Result<EntryKind> SosReportBackend::kind(const std::string& path) const {
  if (files_.count(path) != 0) return EntryKind::kFile;
  if (directories_.count(path) != 0) return EntryKind::kDirectory;
  return base_->kind(path);
}

Result<std::string> SosReportBackend::link_target(const std::string& path) const {
  if (made(path)) return make_error(EINVAL, path);
  return base_->link_target(path);
}

Result<std::string> SosReportBackend::read(const std::string& path, size_t max_bytes,
                                           ReadExtent extent) const {
  if (directories_.count(path) != 0) return make_error(EINVAL, path);
  const auto file = files_.find(path);
  if (file == files_.end()) return base_->read(path, max_bytes, extent);
  if (file->second.size() <= max_bytes) return file->second;
  if (extent != ReadExtent::kWhole) return file->second.substr(0, max_bytes);
  return make_error(EFBIG, path);
}

Result<std::vector<DirEntry>> SosReportBackend::list(const std::string& path) const {
  std::vector<DirEntry> entries;
  if (directories_.count(path) == 0) {
    auto listed = base_->list(path);
    if (!listed) return listed;
    entries = std::move(*listed);
  }
  if (const auto names = made_names_.find(path); names != made_names_.end()) {
    for (const auto& name : names->second) {
      const std::string child = path == "/" ? "/" + name : path + "/" + name;
      entries.push_back(
          {name, files_.count(child) != 0 ? EntryKind::kFile : EntryKind::kDirectory});
    }
  }
  return entries;
}

Result<std::string> SosReportBackend::host_path(const std::string& path) const {
  if (made(path)) return make_error(ENOENT, path + " (made from a sos report's command output)");
  return base_->host_path(path);
}

void lay_kernel_log(std::string_view dmesg, SosReportBackend& report) {
  report.add("/dev/kmsg", kmsg_records_from_dmesg(dmesg, kMaxKmsgBytes));
}

void lay_sysctl(std::string_view output, SosReportBackend& report) {
  for (auto& [path, content] : proc_sys_files_from_sysctl(output, kMaxSysctlKeys)) {
    report.add(path, std::move(content));
  }
}

void lay_release(std::string_view output, SosReportBackend& report) {
  if (const auto release = release_from_uname(output)) {
    report.add("/proc/sys/kernel/osrelease", *release + "\n");
  }
}

// The one place where sos's command outputs meet the paths collectors read; in this order, so
// that a key sysctl -a printed wins over uname -a's release.
struct CommandOutput {
  std::string_view source;
  size_t max_bytes;
  void (*lay)(std::string_view, SosReportBackend&);
};

constexpr CommandOutput kCommandOutputs[] = {
    {"/sos_commands/kernel/dmesg", kMaxKmsgBytes, lay_kernel_log},
    {"/sos_commands/kernel/sysctl_-a", kMaxSysctlBytes, lay_sysctl},
    {"/sos_commands/kernel/uname_-a", kMaxUnameBytes, lay_release},
};

bool has_kind(const SysRootBackend& backend, const std::string& path, EntryKind wanted) {
  const auto kind = backend.kind(path);
  return kind && *kind == wanted;
}

}  // namespace

bool is_sos_report(const SysRootBackend& backend) {
  return has_kind(backend, "/sos_commands", EntryKind::kDirectory) &&
         (has_kind(backend, "/sos_reports", EntryKind::kDirectory) ||
          has_kind(backend, "/version.txt", EntryKind::kFile));
}

std::shared_ptr<const SysRootBackend> with_sos_commands(
    std::shared_ptr<const SysRootBackend> backend) {
  if (!is_sos_report(*backend)) return backend;
  auto report = std::make_shared<SosReportBackend>(std::move(backend));
  for (const auto& output : kCommandOutputs) {
    const auto text = read_output(report->base(), std::string(output.source), output.max_bytes);
    if (text) output.lay(*text, *report);
  }
  return report;
}

SourceFormat sos_report_format() {
  SourceFormat format{.layer = with_sos_commands, .reads = {}};
  for (const auto& output : kCommandOutputs)
    format.reads.push_back(output.source.substr(1));
  return format;
}

}  // namespace kdrift
