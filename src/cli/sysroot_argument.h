#pragma once
// --root accepts a directory or a dump-sysroot archive. An archive is read into memory, within
// kDumpArchiveLimits, and served from there: nothing of it is ever written to disk.

#include <string>

#include "util/sysroot.h"

namespace kdrift {

// The reader for --root; "/" is the live host. Throws FatalError (exit 2) naming the argument,
// and the member for a refused archive.
SysRoot sysroot_argument(const std::string& argument);

}  // namespace kdrift
