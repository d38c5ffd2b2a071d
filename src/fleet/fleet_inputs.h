#pragma once
// What kdrift fleet was given: snapshot files and directories of them, as hosts. A host is named
// by its file (the base name without .json.gz or .json), which is how an Ansible fetch names
// the file it brought back from each inventory host. A directory contributes the regular
// .json and .json.gz files directly inside it; each is opened below the directory's descriptor
// without following a symlink, so an entry swapped for a link after the listing is refused,
// not read. Each snapshot is opened once and stays open to the end of the run: every read of
// an input after its first is of that same open file, from its start, never of its name again.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/unique_fd.h"

namespace kdrift {

struct FleetInput {
  std::string host;
  std::string file;       // the path as it reads in a report
  std::string directory;  // the directory argument it was found in ("" for a file argument)
  std::shared_ptr<const UniqueFd> directory_fd;  // null for a file argument
  std::string entry;                             // its name inside directory_fd
  UniqueFd snapshot;  // the file as its first read opened it; closed until then
};

// The inputs in argument order (a directory's files sorted by name). Errors: an argument that
// is neither a regular file nor a directory, an unreadable directory, more than max_hosts
// inputs, one host name twice (two files for one host would count it twice), more inputs than
// the open-file limit (RLIMIT_NOFILE, raised to fit them where it can be) lets stay open.
Result<std::vector<FleetInput>> fleet_inputs(const std::vector<std::string>& arguments,
                                             std::size_t max_hosts);

// The snapshot of an input, built through the member filter when one is given (null: whole).
// The first read opens the file and keeps it in input.snapshot; a later one reads that open
// file again from its start, so a file renamed over the name meanwhile is never what it reads.
Result<Json> read_fleet_input(FleetInput& input, const JsonMemberFilter* keep);

// Whether a --group pattern takes an input: a shell glob (fnmatch) on the host name or the
// file's path, or the directory it was found in (a trailing / ignored).
bool group_pattern_matches(const std::string& pattern, const FleetInput& input);

}  // namespace kdrift
