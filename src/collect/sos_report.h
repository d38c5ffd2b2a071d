#pragma once
// A sos report read as a sysroot. sos copies much of /proc and /sys where the host had them, so
// the collectors read those as they are; what sos keeps only as a command's output is put back
// where the host had it, here and nowhere else (sos_commands.h parses the text):
//   sos_commands/kernel/dmesg     -> /dev/kmsg (the kernel log records)
//   sos_commands/kernel/sysctl_-a -> /proc/sys/... (each key's file, unless sos copied it)
//   sos_commands/kernel/uname_-a  -> /proc/sys/kernel/osrelease (unless present by now)
// A file sos copied always wins over one made from a command. Everything else a collector asks
// for and sos did not keep reads as missing, and the collector names it unavailable.

#include <memory>

#include "util/sysroot_backend.h"
#include "util/sysroot_open.h"

namespace kdrift {

// sos writes sos_commands/ and either sos_reports/ (3.x and later) or version.txt at the top.
bool is_sos_report(const SysRootBackend& backend);

// backend with the files made from sos's command outputs laid over it when it holds a sos
// report; backend itself otherwise. The command outputs are read within fixed bounds, never
// through a symlink.
std::shared_ptr<const SysRootBackend> with_sos_commands(
    std::shared_ptr<const SysRootBackend> backend);

// with_sos_commands and the command outputs it reads, for open_sysroot.
SourceFormat sos_report_format();

}  // namespace kdrift
