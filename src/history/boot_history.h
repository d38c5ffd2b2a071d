#pragma once
// The boot history: one directory, one gzip'd snapshot per boot, named
// <captured_at as 20250131T080910Z>-<first 8 chars of the boot id>.json.gz so that file names sort
// by time. kdrift-bootcheck.service records every boot here; `kdrift history` lists them. Root
// writes and prunes it on every boot, so it is a TrustedDir (util/trusted_dir.h): refused when
// another user could write it or a directory above it, and used through its descriptor only.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

inline constexpr std::string_view kDefaultBootDirectory = "/var/lib/kdrift/boots";
// Two months of daily reboots; a boot snapshot packs to ~30 KB.
inline constexpr size_t kDefaultBootsKept = 60;
inline constexpr std::string_view kBootFileSuffix = ".json.gz";

struct BootRecord {
  std::string path;
  std::string boot_id;      // kernel.boot_id of the snapshot (the whole id, not the name's 8)
  std::string release;      // kernel.release
  std::string captured_at;  // capture.captured_at, "2025-01-31T08:09:10Z"
  std::optional<int> loader_type;    // kernel.loader_type: what started the kernel (x86)
  std::vector<std::string> devices;  // hardware_devices (kexec_devices.h)
  // Why the file could not be read (truncated, not a snapshot); then only path is set.
  std::string error;
};

// Every *.json.gz in dir, oldest first (by name). A file that cannot be read or parsed is listed
// with its error and the listing goes on. A missing dir is an empty history; a dir that cannot be
// listed, or that another user could write, is an error.
Result<std::vector<BootRecord>> list_boots(const std::string& dir);

struct RecordedBoot {
  BootRecord boot;
  bool stored = false;  // false: this boot id was recorded before, boot is that earlier record
};

// Stores snapshot (which must carry kernel.boot_id) in dir, creating dir, written atomically, then
// removes the oldest files beyond keep (at least 1). A boot id already in dir is not stored again.
Result<RecordedBoot> record_boot(const std::string& dir, const Json& snapshot,
                                 size_t keep = kDefaultBootsKept);

// The newest readable boot in boots (as list_boots orders them) whose boot id is not
// current_boot_id: the boot before this one. By boot id rather than by position, so that this
// boot's own record, wherever a wrong clock sorted it, is never its own predecessor.
std::optional<BootRecord> previous_boot(const std::vector<BootRecord>& boots,
                                        std::string_view current_boot_id);

// The listing as a document (`kdrift history --format json`, and what the text view renders):
// {directory, boots: [{path, boot_id, release, captured_at, this_boot, kernel_changed,
// previous_release} or {path, error}]}, a boot's kernel_changed against the readable boot
// listed before it.
Json history_document(const std::string& dir, const std::vector<BootRecord>& boots,
                      const std::string& current_boot_id);

}  // namespace kdrift
