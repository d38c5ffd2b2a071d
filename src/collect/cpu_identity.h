#pragma once
// What processor /proc/cpuinfo describes, on every architecture Linux prints it for. Each one
// uses its own keys (x86 "vendor_id"/"model name", Arm "CPU implementer"/"CPU part", POWER "cpu",
// RISC-V "uarch"/"mvendorid", LoongArch "Model Name", s390 "vendor_id" and "processor N: …
// machine = …", SPARC "cpu"/"type"), and a sysroot has no uname to say which one it is: the keys
// themselves tell.

#include <optional>
#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

// "x86", "arm64", "arm", "powerpc", "riscv64", "riscv32", "loongarch64", "loongarch32", "s390",
// "sparc" or "mips", from the keys of the text; nullopt when no key names an architecture.
std::optional<std::string> cpuinfo_architecture(std::string_view cpuinfo);

// {architecture, vendor, model_name, <architecture family>{its own keys, as printed}} from the
// text of /proc/cpuinfo (its head, or the whole file where the architecture prints its platform
// lines last). Whatever the text lacks is marked unavailable with the reason.
Json cpu_identity(std::string_view cpuinfo);

// cpu_identity of this root's /proc/cpuinfo; the whole file is read only on POWER, whose
// "platform", "model" and "machine" lines come after every processor's block.
Result<Json> read_cpu_identity(const SysRoot& root);

}  // namespace kdrift
