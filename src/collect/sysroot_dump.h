#pragma once
// dump-sysroot: a capture that records every file, directory and symlink it touched, packed as a
// tar.gz that --root replays to the same snapshot.

#include <string>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

inline constexpr std::string_view kDumpSnapshotName = "kdrift-snapshot.json";

struct SysrootDump {
  std::string tar_gz;  // the archive's bytes
  Json snapshot;       // the capture made while recording (also inside the archive)
};

// A capture of root (which this copy records), and what it read packed as an archive.
Result<SysrootDump> dump_sysroot(SysRoot root);

}  // namespace kdrift
