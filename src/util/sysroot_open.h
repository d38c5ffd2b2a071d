#pragma once
// What --root names, as a reader. A tree is recognised by proc/, sys/ or kdrift's dump manifest
// at its top; a tree with none of them and exactly one folder is read from inside that folder,
// since that is how other tools pack a host's files (util-linux's lscpu dumps, sos reports).
// Anything else is refused, saying what was there: an empty snapshot captured from the wrong
// folder would look like a host where nothing could be read.

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/sysroot.h"
#include "util/sysroot_backend.h"

namespace kdrift {

// A format other tools pack a host's files in: its adapter, laid over the files found (a sos
// report's command outputs), and the files it reads there besides the host's own ("sos_commands/
// kernel/dmesg"), relative to the tree's top.
using BackendLayer =
    std::shared_ptr<const SysRootBackend> (*)(std::shared_ptr<const SysRootBackend>);
struct SourceFormat {
  BackendLayer layer = nullptr;
  std::vector<std::string_view> reads;
};

// "/" is the live host; a directory is read below its descriptor; a regular file is a tar
// archive (any compression libarchive reads) held in memory within kDumpArchiveLimits, but only
// the files a capture may read: those below the host's proc, sys, boot, dev and etc, a format's
// reads, and the files at the tree's top; any other is a name whose read fails with ENODATA.
// The format's layer, when given, is laid over the files found; the live host is never layered.
Result<SysRoot> open_sysroot(const std::string& argument, const SourceFormat& format = {});

// Whether the file at path (absolute, in an archive) is one a capture may read, the tree being
// at the archive's top or in its one top folder.
bool capture_may_read(std::string_view path, const SourceFormat& format);

// The folder of backend to serve as the root: "/" or "/<the one top folder>".
Result<std::string> sysroot_folder(const SysRootBackend& backend);

}  // namespace kdrift
