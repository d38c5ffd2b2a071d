#pragma once
// Booting a candidate kernel without firmware: kexec-tools loads the image, then the machine
// jumps into it (through systemd's clean shutdown where systemd runs the machine). The preflight
// says, before a bisect starts, whether this host can do that and what to change if not.

#include <ostream>
#include <string>
#include <vector>

#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct KexecImage {
  std::string kernel;
  std::string initrd;        // empty: none
  std::string command_line;  // passed whole, as one argument
};

struct KexecPreflight {
  std::vector<std::string> problems;  // each: what blocks kexec and how to fix it
  std::vector<std::string> notes;     // what may matter, or what could not be told
  std::string kexec_path;             // empty when kexec-tools is not installed
  bool file_load_possible = false;    // kexec_file_load (kexec -s)
  bool legacy_load_possible = false;  // kexec_load
  bool ok() const { return problems.empty(); }
};

// Kernel config, kexec_load_disabled, lockdown and Secure Boot read through root; kexec looked
// up on search_path, which is this host's filesystem (a PATH-style list), not the sysroot.
KexecPreflight kexec_preflight(const SysRoot& root, const std::string& search_path);

// /run/systemd/system is a directory: systemd is the init system (sd_booted's test).
bool systemd_is_pid1(const SysRoot& root);

// kexec [-s] -l KERNEL [--initrd=INITRD] --command-line=LINE, one argv word per argument.
std::vector<std::string> kexec_load_command(const std::string& kexec_path, const KexecImage& image,
                                            bool file_syscall);
// {"systemctl", "kexec"} under systemd (services stop and filesystems unmount first), else
// {kexec_path, "-e"}.
std::vector<std::string> kexec_exec_command(const std::string& kexec_path, bool systemd_is_pid1);

// Loads image (kexec_file_load first when possible, the legacy call if that fails), syncs, and
// jumps. Every error is a failure of the machinery, never a verdict on the candidate: a refused
// preflight, an unreadable image, a load both calls rejected, or a jump that came back.
// `kexec -e` does not return when it works; `systemctl kexec` queues the shutdown and returns 0,
// after which this process is about to be stopped and must start nothing new.
// dry_run: writes the commands to log, one per line and shell-quoted, and runs nothing.
Status kexec_into(const KexecPreflight& preflight, const KexecImage& image, bool systemd,
                  bool dry_run, std::ostream& log);

}  // namespace kdrift
