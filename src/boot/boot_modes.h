#pragma once
// Which ways this host can boot a bisect's candidates, and why not the others: kexec (its
// preflight: the kernel's support, kexec_load_disabled, lockdown, Secure Boot, kexec-tools) and a
// reboot through each boot loader found (GRUB, systemd-boot, the firmware's BootNext). `--mode
// auto` takes kexec where it works and the loader that booted this machine otherwise; a mode
// that cannot work here is refused before anything is recorded.

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "boot/boot_method.h"
#include "boot/kexec.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

struct LoaderSurvey {
  LoaderPlace place;
  bool usable = false;
  std::string why;  // what was found, or what blocks a one-shot boot and how to fix it
};

struct BootModes {
  KexecPreflight kexec;
  std::vector<LoaderSurvey> loaders;  // every loader found, the one that booted the host first
  // The loader a reboot bisect would use: the first usable one.
  std::optional<LoaderPlace> reboot_loader() const;
};

// Everything read below root (its root() is the host's "/"): the kexec preflight, then each loader
// found, the one that started this boot first.
BootModes survey_boot_modes(const SysRoot& root, const std::string& search_path);

struct ModeChoice {
  std::string mode;    // "kexec" or "reboot"
  LoaderPlace loader;  // reboot: the loader
  std::string why;
};

// requested: "kexec", "reboot" or "auto"; loader: a loader's name to insist on, or empty. An
// error names why the mode cannot boot candidates on this host, with what would.
Result<ModeChoice> choose_boot_mode(const BootModes& modes, std::string_view requested,
                                    std::string_view loader);

// The survey for a person: each mode, usable or not, and why.
void print_boot_modes(const BootModes& modes, std::ostream& out);

// The method that boots a bisect's candidates: mode "kexec" or "reboot" with its loader.
// bisect_id names kdrift's boot entries; notes gets what a preflight noticed.
Result<std::unique_ptr<BootMethod>> make_boot_method(const std::string& mode,
                                                     const LoaderPlace& loader, const SysRoot& root,
                                                     const std::string& bisect_id,
                                                     std::ostream& notes);

}  // namespace kdrift
