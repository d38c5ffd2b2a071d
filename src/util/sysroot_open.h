#pragma once
// What --root names, as a reader. A tree is recognised by proc/, sys/ or kdrift's dump manifest
// at its top; a tree with none of them and exactly one folder is read from inside that folder,
// since that is how other tools pack a host's files (util-linux's lscpu dumps, sos reports).
// Anything else is refused, saying what was there: an empty snapshot captured from the wrong
// folder would look like a host where nothing could be read.

#include <string>

#include "util/result.h"
#include "util/sysroot.h"
#include "util/sysroot_backend.h"

namespace kdrift {

// "/" is the live host; a directory is read below its descriptor; a regular file is a tar
// archive (any compression libarchive reads) held in memory within kDumpArchiveLimits.
// layer, when given, is laid over the files found (a source format's adapter: a sos report's
// command outputs); the live host is never layered.
using BackendLayer =
    std::shared_ptr<const SysRootBackend> (*)(std::shared_ptr<const SysRootBackend>);
Result<SysRoot> open_sysroot(const std::string& argument, BackendLayer layer = nullptr);

// The folder of backend to serve as the root: "/" or "/<the one top folder>".
Result<std::string> sysroot_folder(const SysRootBackend& backend);

}  // namespace kdrift
