#pragma once
// What kdrift fleet was given: snapshot files and directories of them, as hosts. A host is named
// by its file (the base name without .json.gz or .json), which is how an Ansible fetch names
// the file it brought back from each inventory host. A directory contributes the regular
// .json and .json.gz files directly inside it; each is opened below the directory's descriptor
// without following a symlink, so an entry swapped for a link after the listing is refused,
// not read.
//
// A fleet reads every snapshot once to find the outliers and reads some again to judge them;
// the second read must be of the file the first one judged, never of whatever the name holds
// by then. A descriptor per host would guarantee that but needs an open-file limit above the
// fleet's size, which a container's root may not raise. So each snapshot is closed after its
// first read, and a later read reopens that same file by its file handle (open_by_handle_at:
// the inode itself, whatever is renamed over its name). Where handles are not available (no
// CAP_DAC_READ_SEARCH, a file system without them) it reopens the name and refuses unless it
// finds the same file (device and inode). Either way a file whose size or modification time
// moved since the first read is refused too: a snapshot replaced or rewritten between the reads
// is reported as such, not judged.
#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/unique_fd.h"

namespace kdrift {

class FileSystemAnchors;  // a descriptor on each file system a handle is reopened in

// The file a snapshot's first read found, and how to find it again.
struct SnapshotIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{};  // st_mtim, not st_ctim: a link or a rename moves the change time
  std::vector<unsigned char> handle;  // a struct file_handle from name_to_handle_at, or none
};

struct FleetInput {
  std::string host;
  std::string file;       // the path as it reads in a report
  std::string directory;  // the directory argument it was found in ("" for a file argument)
  std::shared_ptr<const UniqueFd> directory_fd;  // null for a file argument
  std::string entry;                             // its name inside directory_fd
  std::shared_ptr<FileSystemAnchors> anchors;    // shared by every input of one run
  std::optional<SnapshotIdentity> first_read;    // unset until the first read
};

// The inputs in argument order (a directory's files sorted by name). Errors: an argument that
// is neither a regular file nor a directory, an unreadable directory, more than max_hosts
// inputs, one host name twice (two files for one host would count it twice).
Result<std::vector<FleetInput>> fleet_inputs(const std::vector<std::string>& arguments,
                                             std::size_t max_hosts);

// The snapshot of an input, built through the member filter when one is given (null: whole).
// The first read records which file it read; a later one reads that file again, or fails
// saying it was replaced or rewritten (above). No descriptor stays open between reads, except
// one per file system for the handles.
Result<Json> read_fleet_input(FleetInput& input, const JsonMemberFilter* keep);

// Whether a --group pattern takes an input: a shell glob (fnmatch) on the host name or the
// file's path, or the directory it was found in (a trailing / ignored).
bool group_pattern_matches(const std::string& pattern, const FleetInput& input);

}  // namespace kdrift
