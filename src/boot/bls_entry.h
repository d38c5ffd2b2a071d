#pragma once
// Boot Loader Specification type #1 entries (loader/entries/*.conf on the EFI system partition or
// XBOOTLDR), as systemd-boot reads them: "key value" lines, '#' comments; `initrd` may repeat,
// `options` lines are joined with spaces. Paths are relative to the partition's root.

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kdrift {

struct BlsEntry {
  std::string file_name;  // the entry's id for LoaderEntryOneShot: "debian-6.1.0-50-amd64.conf"
  std::string title;
  std::string version;
  std::string machine_id;
  std::string linux_path;
  std::vector<std::string> initrd_paths;
  std::string options;
};

// Bounded: at most 64 KiB, lines of 4 KiB; no NUL or control bytes but tabs. Errors name the line.
Result<BlsEntry> parse_bls_entry(std::string_view text, std::string file_name);

// The entry as systemd-boot reads it back, each value checked to be one line of printable text.
Result<std::string> render_bls_entry(const BlsEntry& entry, std::string_view comment);

}  // namespace kdrift
