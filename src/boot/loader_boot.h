#pragma once
// What every boot loader's one-shot boot shares: the host paths below the root a step reads,
// kdrift's own name for its entries, the command line a candidate gets so that a kernel that
// panics comes back by itself, and the reboot through the firmware.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "boot/boot_method.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

// The seconds after which a candidate that panics reboots (panic=), unless its command line
// already says: the firmware then boots the default entry, the known-good kernel.
inline constexpr int kCandidatePanicSeconds = 10;

// The command line with panic=kCandidatePanicSeconds added when it has no panic= word.
std::string with_panic_reboot(std::string_view command_line);

// "kdrift-<bisect id>": the entry kdrift writes for a bisect, and what undo looks for. Refused
// for an id that is not a plain name (the id comes from the journal).
Result<std::string> loader_entry_id(std::string_view bisect_id);

// path (absolute, as the host sees it) below root_path ("/" for the live host).
std::string below_root(const std::string& root_path, std::string_view path);

// A candidate's file to copy where the loader can read it: the descriptor that was checked.
struct FileCopy {
  int fd = -1;
  std::string name;   // in the copies' folder
  std::string shown;  // the file it came from, for messages
};

// files copied into parent/folder (made if missing, root's), each replaced atomically; nothing
// to copy makes nothing. At most 512 MiB a file.
Status copy_candidate_files_into(const std::string& parent, const std::string& folder,
                                 const std::vector<FileCopy>& files);

// The folder kdrift copied candidates' files into, removed with them (only plain files are
// there); one that is not there is not an error.
Status remove_copied_files(const std::string& directory, std::ostream& log);

// `systemctl reboot` where systemd runs the machine (services stop and filesystems unmount
// first), else `reboot`; said on log first. Returns when the reboot is under way.
Status reboot_machine(const SysRoot& root, std::ostream& log);

}  // namespace kdrift
