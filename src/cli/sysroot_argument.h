#pragma once
// --root accepts a directory or a dump archive (kdrift's dump-sysroot, or another tool's tree of
// /proc and /sys, under one top folder or none). An archive is read into memory, within
// kDumpArchiveLimits, and served from there: nothing of it is ever written to disk.

#include <string>

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// The reader for --root; "/" is the live host. Throws FatalError (exit 2) naming the argument
// and what was wrong: no such path, a refused archive member, or no host tree at its top.
SysRoot sysroot_argument(const std::string& argument);

// capture_snapshot of sysroot_argument(argument); a tree past what a host's capture reads
// (SysRoot::within_budget) is refused with FatalError, exit 2, and nothing is written.
Json capture_argument(const std::string& argument);

}  // namespace kdrift
