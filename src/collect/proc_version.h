#pragma once
// /proc/version: "Linux version <release> (<builder>) (<compiler>, <linker>) <version>". It holds
// the same release and version as /proc/sys/kernel/osrelease and /proc/sys/kernel/version, and
// is the file reports and dumps most often keep (sos reports, support bundles, lscpu dumps).

#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

struct ProcVersion {
  std::string release;  // "6.1.0-13-amd64", as uname -r
  std::string version;  // "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)", as uname -v
};

// The parenthesised groups after the release may nest ("(gcc-12 (Debian 12.2.0-14) 12.2.0)");
// the version is what follows the last of them and starts with '#'.
Result<ProcVersion> parse_proc_version(std::string_view text);

}  // namespace kdrift
