#include "history/boot_history.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <ctime>

#include "history/kexec_devices.h"
#include "snapshot/json_access.h"
#include "util/gzip.h"
#include "util/trusted_dir.h"

namespace kdrift {
namespace {

constexpr size_t kBootIdChars = 8;

BootRecord read_boot(const TrustedDir& dir, const std::string& name) {
  BootRecord record;
  record.path = dir.path_of(name);
  // Packed snapshots are smaller than their text, so the text's limit bounds the file too.
  auto bytes = dir.read_file(name, kMaxSnapshotTextBytes);
  auto snapshot = bytes ? read_snapshot_text(*bytes, record.path) : Result<Json>(bytes.error());
  if (!snapshot) {
    record.error = snapshot.error().describe();
    return record;
  }
  const Json* kernel = object_member(*snapshot, "kernel");
  const Json* capture = object_member(*snapshot, kCaptureMetaSection);
  record.boot_id = kernel != nullptr ? text_member(*kernel, "boot_id") : std::string();
  record.release = kernel != nullptr ? text_member(*kernel, "release") : std::string();
  record.captured_at = capture != nullptr ? text_member(*capture, "captured_at") : std::string();
  if (kernel != nullptr) {
    const auto loader = integer_member(*kernel, "loader_type");
    if (loader && *loader >= 0 && *loader <= 0xff) record.loader_type = static_cast<int>(*loader);
  }
  record.devices = hardware_devices(*snapshot);
  // Without its boot id a record can be neither deduplicated nor told from this boot.
  if (record.boot_id.empty()) record.error = record.path + ": the snapshot has no kernel.boot_id";
  return record;
}

// Names of the boot files in dir, sorted (oldest first).
Result<std::vector<std::string>> boot_file_names(const TrustedDir& dir) {
  auto entries = dir.list();
  if (!entries) return entries.error();
  std::vector<std::string> names;
  for (std::string& name : *entries) {
    // Temporary files of an interrupted atomic write end in .tmp and are skipped here.
    if (name.size() > kBootFileSuffix.size() && name.ends_with(kBootFileSuffix)) {
      names.push_back(std::move(name));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<BootRecord> read_boots(const TrustedDir& dir, const std::vector<std::string>& names) {
  std::vector<BootRecord> boots;
  boots.reserve(names.size());
  for (const std::string& name : names)
    boots.push_back(read_boot(dir, name));
  return boots;
}

// "2025-01-31T08:09:10Z" -> "20250131T080910Z"; the time now when the snapshot's is not of that
// shape (a hand-made document), so the name still sorts.
std::string file_time(const std::string& captured_at) {
  std::string compact;
  for (const char c : captured_at) {
    if (c != '-' && c != ':') compact.push_back(c);
  }
  const auto digits = [&compact](size_t from, size_t to) {
    return std::all_of(compact.begin() + static_cast<std::ptrdiff_t>(from),
                       compact.begin() + static_cast<std::ptrdiff_t>(to),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  };
  const bool shaped = compact.size() == 16 && compact[8] == 'T' && compact[15] == 'Z' &&
                      digits(0, 8) && digits(9, 15);
  if (shaped) return compact;
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32] = "";
  if (std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &parts) == 0) return "00000000T000000Z";
  return text;
}

Status prune(const TrustedDir& dir, size_t keep, const std::string& kept_name) {
  auto names = boot_file_names(dir);
  if (!names) return names.error();
  size_t excess = names->size() > keep ? names->size() - keep : 0;
  for (const std::string& name : *names) {
    if (excess == 0) break;
    // The boot just stored stays even when a wrong clock sorted it first.
    if (name == kept_name) continue;
    if (auto removed = dir.remove_file(name); !removed) return removed;
    --excess;
  }
  return ok_status();
}

}  // namespace

Result<std::vector<BootRecord>> list_boots(const std::string& dir) {
  auto opened = TrustedDir::open(dir);
  if (!opened) {
    if (opened.error().code == ENOENT) return std::vector<BootRecord>{};
    return opened.error();
  }
  auto names = boot_file_names(*opened);
  if (!names) return names.error();
  return read_boots(*opened, *names);
}

Result<RecordedBoot> record_boot(const std::string& dir, const Json& snapshot, size_t keep) {
  if (keep == 0) return make_error(EINVAL, "keep at least one boot in " + dir);
  const Json* kernel = object_member(snapshot, "kernel");
  const std::string boot_id = kernel != nullptr ? text_member(*kernel, "boot_id") : std::string();
  // The id goes into a file name: only what /proc/sys/kernel/random/boot_id holds (a UUID).
  const bool usable =
      boot_id.size() >= kBootIdChars && std::all_of(boot_id.begin(), boot_id.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == '-';
      });
  if (!usable) {
    return content_error("the snapshot has no usable kernel.boot_id (\"" + boot_id +
                         "\"): cannot record the boot");
  }
  auto opened = TrustedDir::open(dir, TrustedDir::Missing::kCreate, 0755);
  if (!opened) return opened.error();
  auto names = boot_file_names(*opened);
  if (!names) return names.error();
  for (const BootRecord& boot : read_boots(*opened, *names)) {
    if (boot.error.empty() && boot.boot_id == boot_id) return RecordedBoot{boot, false};
  }

  const Json* capture = object_member(snapshot, kCaptureMetaSection);
  const std::string captured_at =
      capture != nullptr ? text_member(*capture, "captured_at") : std::string();
  const std::string name =
      file_time(captured_at) + "-" + boot_id.substr(0, kBootIdChars) + std::string(kBootFileSuffix);
  const std::string path = opened->path_of(name);
  auto packed = gzip(to_text(snapshot), path);
  if (!packed) return packed.error();
  if (auto written = opened->replace_file(name, *packed); !written) return written.error();
  if (auto pruned = prune(*opened, keep, name); !pruned) return pruned.error();
  BootRecord boot;
  boot.path = path;
  boot.boot_id = boot_id;
  boot.release = kernel != nullptr ? text_member(*kernel, "release") : std::string();
  boot.captured_at = captured_at;
  return RecordedBoot{std::move(boot), true};
}

std::optional<BootRecord> previous_boot(const std::vector<BootRecord>& boots,
                                        std::string_view current_boot_id) {
  for (auto it = boots.rbegin(); it != boots.rend(); ++it) {
    if (it->error.empty() && it->boot_id != current_boot_id) return *it;
  }
  return std::nullopt;
}

Json history_document(const std::string& dir, const std::vector<BootRecord>& boots,
                      const std::string& current_boot_id) {
  Json list = Json::array();
  const BootRecord* before = nullptr;
  for (const BootRecord& boot : boots) {
    if (!boot.error.empty()) {
      list.push_back({{"path", boot.path}, {"error", boot.error}});
      continue;
    }
    Json entry = {{"path", boot.path},
                  {"boot_id", boot.boot_id},
                  {"release", boot.release},
                  {"captured_at", boot.captured_at},
                  {"this_boot", boot.boot_id == current_boot_id},
                  {"kernel_changed", before != nullptr && before->release != boot.release}};
    if (before != nullptr) entry["previous_release"] = before->release;
    list.push_back(std::move(entry));
    before = &boot;
  }
  return {{"directory", dir}, {"boots", std::move(list)}};
}

}  // namespace kdrift
