#include "cli/version_report.h"

#include <bpf/libbpf.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <sstream>

#include "collect/pci.h"
#include "iobench/interface_support.h"
#include "trace/block_trace.h"
#include "trace/io_trace.h"
#include "trace/kernel_features.h"
#include "trace/nvme_trace.h"
#include "trace/program_choice.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/version.h"

namespace kdrift {
namespace {

std::string outcome(const Result<std::string>& result) {
  return result ? *result : "unavailable: " + result.error().describe();
}

void build_lines(std::ostream& out) {
  out << "built with:\n";
  out << "  BPF programs (CO-RE): " << KDRIFT_BPF_PROGRAMS << "\n";
  out << "  libbpf " << libbpf_major_version() << "." << libbpf_minor_version()
      << " (built against " << KDRIFT_LIBBPF_VERSION << ")\n";
  out << "  liburing " << KDRIFT_LIBURING_VERSION << "\n";
  const std::string ids = pci_ids_file();
  out << "  libpci " << KDRIFT_LIBPCI_VERSION << ", PCI IDs "
      << terminal_safe(ids.empty() ? "none" : ids)
      << (!ids.empty() && ::access(ids.c_str(), R_OK) == 0 ? "" : " (not readable: no names)")
      << "\n";
}

void host_lines(std::ostream& out) {
  utsname name{};
  out << "this host:\n";
  out << "  kernel " << (::uname(&name) == 0 ? terminal_safe(name.release) : "unknown") << "\n";
  const TraceFeatures& features = running_kernel_features();
  if (auto why = features.unavailable()) {
    out << "  BTF: unavailable: " << terminal_safe(*why) << " (no block-layer trace)\n";
  } else {
    // The same choice a trace makes when it loads: each tracepoint's program for this kernel.
    out << "  BTF: yes; program per tracepoint:\n";
    for (const auto* wanted : {&block_tracepoints(), &io_tracepoints(), &nvme_tracepoints()}) {
      for (const ProgramChoice& choice : choose_programs(*wanted, features)) {
        out << "    " << choice.tracepoint << ": "
            << terminal_safe(choice.program ? *choice.program : "none: " + choice.reason) << "\n";
      }
    }
  }
  const SysRoot live("/");
  const auto disabled = live.read("/proc/sys/kernel/io_uring_disabled", 64);
  out << "  io_uring: " << outcome(io_uring_support()) << "; kernel.io_uring_disabled "
      << (disabled ? terminal_safe(trim(*disabled)) : "absent") << "\n";
  out << "  libaio: " << outcome(libaio_support()) << "\n";
  out << "  running as uid " << ::geteuid()
      << (::geteuid() == 0 ? "" : " (the trace and raw devices need root)") << "\n";
}

}  // namespace

std::string version_report(bool verbose) {
  std::ostringstream out;
  out << "kdrift " << kKdriftVersion << "\n";
  build_lines(out);
  if (verbose) host_lines(out);
  return out.str();
}

}  // namespace kdrift
