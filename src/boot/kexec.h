#pragma once
// Booting a candidate kernel without firmware: kdrift loads the image it checked (kexec_image.h)
// from its descriptors, then the machine jumps into it (through systemd's clean shutdown where
// systemd runs the machine). The preflight says, before a bisect starts, whether this host can
// do that and what to change if not.

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "boot/boot_method.h"
#include "boot/kexec_image.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct KexecPreflight {
  std::vector<std::string> problems;  // each: what blocks kexec and how to fix it
  std::vector<std::string> notes;     // what may matter, or what could not be told
  std::string kexec_path;             // empty when kexec-tools is not installed
  bool file_load_possible = false;    // kexec_file_load (kexec -s)
  bool legacy_load_possible = false;  // kexec_load
  // Why kexec_file_load loads only signed images (lockdown), or empty: then any image loads.
  std::string signatures_required_by;
  bool ok() const { return problems.empty(); }
};

// Kernel config, kexec_load_disabled, lockdown and Secure Boot read through root; kexec looked
// up on search_path, which is this host's filesystem (a PATH-style list), not the sysroot.
KexecPreflight kexec_preflight(const SysRoot& root, const std::string& search_path);

// Under lockdown a candidate kexec can boot must carry a signature (pe_image_signed): each
// kernel image below root without one becomes a problem of the preflight, named for its label,
// so `--mode auto` reboots and `--mode kexec` refuses before anything is recorded.
// images_built_unsigned: the candidates are kernels kdrift will build, which nothing signs. An
// image that cannot be read is left to the start's own check of the images. Does nothing when any
// image would load.
void require_signed_images(KexecPreflight& preflight, const SysRoot& root,
                           const std::vector<BootImage>& images, bool images_built_unsigned);

// /run/systemd/system is a directory: systemd is the init system (sd_booted's test).
bool systemd_is_pid1(const SysRoot& root);

// kexec -l /proc/self/fd/KERNEL_FD [--initrd=/proc/self/fd/INITRD_FD] --command-line=LINE: the
// legacy kexec_load through kexec-tools, which reads the checked descriptors it inherits, so no
// path is looked up again. initrd_fd < 0: none.
std::vector<std::string> kexec_load_command(const std::string& kexec_path, int kernel_fd,
                                            int initrd_fd, const std::string& command_line);
// {"systemctl", "kexec"} under systemd (services stop and filesystems unmount first), else
// {kexec_path, "-e"}.
std::vector<std::string> kexec_exec_command(const std::string& kexec_path, bool systemd_is_pid1);

// kexec_file_load(kernel_fd, initrd_fd, command line) (KEXEC_FILE_NO_INITRAMFS when initrd_fd <
// 0): 0 when the image is loaded, else the errno. Tests pass their own.
using FileLoadCall =
    std::function<int(int kernel_fd, int initrd_fd, const std::string& command_line)>;
int kexec_file_load_call(int kernel_fd, int initrd_fd, const std::string& command_line);

// Loads image from files, its descriptors opened and checked by open_kexec_files (kexec_file_load
// on them first when possible, kexec-tools' legacy kexec_load on them if that fails), syncs, and
// jumps. Every error is a failure of the machinery, never a verdict on the candidate: a refused
// preflight, a load both calls rejected, or a jump that came back.
// `kexec -e` does not return when it works; `systemctl kexec` queues the shutdown and returns 0,
// after which this process is about to be stopped and must start nothing new.
// dry_run: writes what it would do to log, one line each, and runs nothing. Everything written
// to log is made inert for a terminal: image paths and command lines come from a candidate list.
Status kexec_into(const KexecPreflight& preflight, const BootImage& image, const KexecFiles& files,
                  bool systemd, bool dry_run, std::ostream& log,
                  const FileLoadCall& file_load = kexec_file_load_call);

}  // namespace kdrift
