#pragma once
// What a sos report keeps only as a command's output, parsed back into what the host's own files
// held, for the few commands whose text has a fixed shape: dmesg, sysctl -a, uname -a. Every
// input is untrusted: a line that does not have the shape is left out, never guessed at.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kdrift {

// dmesg's text ("[    5.140900] message", one record a line) as /dev/kmsg hands the records out
// ("prio,seq,usec,-;message", kernel_log.h). dmesg's default output drops the level, so records
// get LOG_INFO unless the line carries its "<N>" prefix (dmesg -r); a line without a timestamp
// (a message's second line) keeps the previous one's. Bytes the kernel escapes in /dev/kmsg
// (controls, and everything from 0x7f up) are escaped as "\xNN" as it does. Records stop before
// the output would exceed max_bytes: the oldest part of the log is kept, as a live read keeps it.
std::string kmsg_records_from_dmesg(std::string_view dmesg, size_t max_bytes);

// sysctl -a's "kernel.osrelease = 6.18.0" lines as the files below /proc/sys that held them
// ("/proc/sys/kernel/osrelease" -> "6.18.0\n"). A key's dots are path separators and its slashes
// dots (sysctl's spelling of "eth0.1"); a value printed over several lines repeats the key, so
// repeated keys are joined by newlines. Lines of another shape (sysctl's own errors, merged into
// the output by sos) and keys naming no plain path are left out; at most max_keys are taken.
std::map<std::string, std::string> proc_sys_files_from_sysctl(std::string_view output,
                                                              size_t max_keys);

// The kernel release (uname -r) in uname -a's "Linux HOST RELEASE #VERSION ..." line.
std::optional<std::string> release_from_uname(std::string_view output);

}  // namespace kdrift
