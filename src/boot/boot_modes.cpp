#include "boot/boot_modes.h"

#include "boot/grub_boot.h"
#include "boot/kexec_boot.h"
#include "boot/loader_boot.h"
#include "boot/systemd_boot.h"
#include "boot/uefi_boot_next.h"
#include "util/text.h"

namespace kdrift {
namespace {

std::string running_cmdline(const SysRoot& root) {
  auto text = root.read("/proc/cmdline");
  return text ? std::string(trim(*text)) : "";
}

std::optional<LoaderSurvey> survey_grub(const SysRoot& root) {
  for (const char* directory : {"/boot/grub", "/boot/grub2"}) {
    if (!root.kind(std::string(directory) + "/grub.cfg")) continue;
    LoaderSurvey survey{{"grub", directory}, false, ""};
    GrubBoot grub(root, root.root(), directory, "survey", running_cmdline(root));
    if (auto config = grub.check_loader(); config) {
      survey.usable = true;
      survey.why = std::string(directory) + "/grub.cfg boots an entry once (next_entry in grubenv)";
    } else {
      survey.why = config.error().describe();
    }
    return survey;
  }
  return std::nullopt;
}

// The efivarfs directory the live host or a tree root has, or where it would be: a method made
// for a root without one refuses in its check, saying so.
std::string efivars_of(const SysRoot& root) {
  return efivars_directory(root).value_or(below_root(root.root(), kEfivarsPath));
}

// BootNext, on a host that booted through UEFI: the ESP where it is mounted (/boot/efi, /efi or
// /boot, the first that holds an EFI folder), judged by the method's own check.
std::optional<LoaderSurvey> survey_uefi(const SysRoot& root) {
  auto efivars = efivars_directory(root);
  if (!efivars) return std::nullopt;
  for (const char* esp : {"/boot/efi", "/efi", "/boot"}) {
    if (!root.kind(std::string(esp) + "/EFI")) continue;
    LoaderSurvey survey{{"uefi", esp}, false, ""};
    const UefiBootNext uefi(root, root.root(), esp, *efivars, "survey");
    if (auto found = uefi.check_loader(); found) {
      survey.usable = true;
      survey.why = "the firmware boots an entry once (BootNext); this kernel is " +
                   boot_entry_name(found->boot_current) + ", " + terminal_safe(found->image_path) +
                   " on the EFI system partition at " + esp;
    } else {
      survey.why = found.error().describe();
    }
    return survey;
  }
  return LoaderSurvey{{"uefi", "/boot/efi"},
                      false,
                      "no EFI system partition mounted at /boot/efi, /efi or /boot (none holds "
                      "an EFI folder)"};
}

// Whether systemd-boot started this boot: it says so in LoaderInfo.
bool booted_by_systemd_boot(const SysRoot& root) {
  auto directory = efivars_directory(root);
  auto variables = directory ? EfiVars::open(*directory) : Result<EfiVars>(directory.error());
  if (!variables) return false;
  auto info = variables->read({"LoaderInfo", std::string(kSystemdBootLoaderGuid)});
  auto text = info ? utf16le_to_utf8(info->data) : Result<std::string>(info.error());
  return text && starts_with(*text, "systemd-boot");
}

// systemd-boot, when it started this boot or its entries are on a mounted ESP.
std::optional<LoaderSurvey> survey_systemd_boot(const SysRoot& root, bool booted) {
  std::optional<std::string> esp;
  for (const char* directory : {"/efi", "/boot", "/boot/efi"}) {
    if (root.kind(std::string(directory) + "/loader/entries")) {
      esp = directory;
      break;
    }
  }
  if (!booted && !esp) return std::nullopt;
  if (!esp) {
    return LoaderSurvey{{"systemd-boot", "/boot/efi"},
                        false,
                        "systemd-boot started this boot, but no EFI system partition with "
                        "loader/entries is mounted at /efi, /boot or /boot/efi: mount it"};
  }
  LoaderSurvey survey{{"systemd-boot", *esp}, false, ""};
  if (!booted) {
    survey.why = *esp +
                 "/loader/entries is there, but systemd-boot did not start this boot (no "
                 "LoaderInfo)";
    return survey;
  }
  const SystemdBoot method(root, root.root(), *esp, "survey");
  if (auto entries = method.check_loader(); entries) {
    survey.usable = true;
    survey.why = "systemd-boot started this boot and boots an entry once (LoaderEntryOneShot); " +
                 std::to_string(entries->size()) + " entries in " + *esp + "/loader/entries";
  } else {
    survey.why = entries.error().describe();
  }
  return survey;
}

}  // namespace

std::optional<LoaderPlace> BootModes::reboot_loader() const {
  for (const LoaderSurvey& survey : loaders) {
    if (survey.usable) return survey.place;
  }
  return std::nullopt;
}

BootModes survey_boot_modes(const SysRoot& root, const std::string& search_path) {
  BootModes modes;
  modes.kexec = kexec_preflight(root, search_path);
  const bool systemd_boot = booted_by_systemd_boot(root);
  if (auto loader = survey_systemd_boot(root, systemd_boot)) {
    modes.loaders.push_back(std::move(*loader));
  }
  if (auto grub = survey_grub(root)) {
    if (systemd_boot && grub->usable) {
      grub->usable = false;
      grub->why = "systemd-boot started this boot, not GRUB: GRUB's next_entry would be ignored";
    }
    modes.loaders.push_back(std::move(*grub));
  }
  if (auto uefi = survey_uefi(root)) {
    // Usable only when the firmware started this kernel itself: it is then what booted the host.
    const auto at = uefi->usable ? modes.loaders.begin() : modes.loaders.end();
    modes.loaders.insert(at, std::move(*uefi));
  }
  return modes;
}

Result<ModeChoice> choose_boot_mode(const BootModes& modes, std::string_view requested,
                                    std::string_view loader) {
  const auto reboot = [&]() -> Result<ModeChoice> {
    for (const LoaderSurvey& survey : modes.loaders) {
      if (!loader.empty() && survey.place.loader != loader) continue;
      if (survey.usable) return ModeChoice{"reboot", survey.place, survey.why};
      if (!loader.empty()) return content_error("--mode reboot: " + survey.why);
    }
    std::string why = "--mode reboot: no boot loader here can boot a kernel once";
    if (!loader.empty()) why += " (" + std::string(loader) + " was not found)";
    for (const LoaderSurvey& survey : modes.loaders)
      why += "\n  " + survey.place.loader + ": " + survey.why;
    return content_error(why);
  };
  const std::string kexec_problems = join(modes.kexec.problems, "\n  ");
  if (requested == "kexec") {
    if (modes.kexec.ok()) return ModeChoice{"kexec", {}, "the kexec preflight passed"};
    return content_error("--mode kexec: this machine cannot kexec (nothing recorded):\n  " +
                         kexec_problems);
  }
  if (requested == "reboot") return reboot();
  if (modes.kexec.ok()) return ModeChoice{"kexec", {}, "auto: kexec works here"};
  auto chosen = reboot();
  if (!chosen) {
    return content_error("--mode auto: neither kexec nor a reboot can boot candidates here:\n  " +
                         kexec_problems + "\n" + chosen.error().describe());
  }
  chosen->why = "auto: kexec cannot (" + join(modes.kexec.problems, " ") + "); " + chosen->why;
  return chosen;
}

void print_boot_modes(const BootModes& modes, std::ostream& out) {
  out << "kexec: " << (modes.kexec.ok() ? "usable" : "not usable") << "\n";
  for (const std::string& problem : modes.kexec.problems)
    out << "  " << terminal_safe(problem) << "\n";
  for (const std::string& note : modes.kexec.notes)
    out << "  note: " << terminal_safe(note) << "\n";
  if (modes.loaders.empty()) out << "reboot: no boot loader found (GRUB, systemd-boot, UEFI)\n";
  for (const LoaderSurvey& survey : modes.loaders) {
    out << "reboot through " << survey.place.loader << " (" << terminal_safe(survey.place.directory)
        << "): " << (survey.usable ? "usable" : "not usable") << "\n  " << terminal_safe(survey.why)
        << "\n";
  }
}

Result<std::unique_ptr<BootMethod>> make_boot_method(const std::string& mode,
                                                     const LoaderPlace& loader, const SysRoot& root,
                                                     const std::string& bisect_id,
                                                     std::ostream& notes) {
  if (mode == "kexec") return std::unique_ptr<BootMethod>(std::make_unique<KexecBoot>(root, notes));
  if (mode == "reboot" && loader.loader == "grub") {
    return std::unique_ptr<BootMethod>(std::make_unique<GrubBoot>(
        root, root.root(), loader.directory, bisect_id, running_cmdline(root)));
  }
  if (mode == "reboot" && loader.loader == "systemd-boot") {
    return std::unique_ptr<BootMethod>(
        std::make_unique<SystemdBoot>(root, root.root(), loader.directory, bisect_id));
  }
  if (mode == "reboot" && loader.loader == "uefi") {
    return std::unique_ptr<BootMethod>(std::make_unique<UefiBootNext>(
        root, root.root(), loader.directory, efivars_of(root), bisect_id));
  }
  return content_error("no boot method for mode \"" + terminal_safe(mode) + "\" and loader \"" +
                       terminal_safe(loader.loader) + "\"");
}

}  // namespace kdrift
