#pragma once
// A candidate booted once by the firmware itself, for hosts whose kernel is booted as an EFI stub
// straight from a boot entry (no GRUB, no systemd-boot): kdrift writes a boot entry of its own,
// Boot1000 or the next free number from there (out of the range firmware and efibootmgr number
// their entries from), that boots the candidate's kernel from the EFI system partition, and sets
// BootNext to it. The firmware deletes BootNext as it boots that entry, so every boot after is
// BootOrder's again; kdrift never touches BootOrder, and a candidate that panics reboots into the
// default entry (panic= on its command line).
//
// The entry copies the running kernel's own entry (BootCurrent's Boot####): its Hard Drive node
// names the ESP partition, which must be the one mounted where the ESP is said to be, and the
// candidate's kernel (and initrd, which the stub loads from the same partition) must be files on
// it, named by their path there. Everything is checked before anything is written, and each
// refusal says what is wrong; `bisect reset` deletes this bisect's entries and a BootNext that
// names one, and nothing else.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "boot/boot_method.h"
#include "boot/efi_vars.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

// Where kdrift numbers its boot entries from: firmware numbers its own from 0, and so does
// efibootmgr, so an entry up here is recognisably kdrift's and never takes a firmware entry's.
inline constexpr uint16_t kFirstKdriftBootEntry = 0x1000;

// "kdrift bisect <id>": the description of this bisect's boot entries, what undo looks for.
std::string uefi_entry_description(std::string_view bisect_id);

// What the running kernel's boot entry says, once it is known to boot a Linux EFI stub from a
// Hard Drive partition mounted at the ESP.
struct UefiBootTemplate {
  uint16_t boot_current = 0;
  EfiLoadOption option;         // Boot<boot_current>
  EfiDevicePathNode partition;  // its Hard Drive node, which kdrift's entries start from
  std::string image_path;       // its File Path, "\EFI\...\vmlinuz.efi"
};

class UefiBootNext : public BootMethod {
 public:
  // esp: where the EFI system partition is mounted (/boot/efi, /efi), as the host sees it, below
  // root_path; efivars: the efivarfs directory (kEfivarsPath below root_path on the live host);
  // bisect_id names kdrift's entries.
  UefiBootNext(const SysRoot& root, std::string root_path, std::string esp, std::string efivars,
               std::string bisect_id);

  std::string_view name() const override { return "uefi"; }
  // The host boots through UEFI (efivarfs there), BootCurrent names a readable entry booting a
  // Linux EFI stub from a Hard Drive partition (not GRUB, shim or systemd-boot: "this host boots
  // through <loader>; use that"), that partition is the one mounted at esp, and the variables
  // can be written. Reads only.
  Result<UefiBootTemplate> check_loader() const;
  // check_loader, and the image's kernel and initrd are files on the ESP (after every symbolic
  // link is resolved, none leading out of it) that only root can change.
  Status prepare(const BootImage& image) override;
  // Writes kdrift's entry (rewriting this bisect's entry if there is one) and BootNext naming it,
  // then reboots. An error leaves BootNext and BootOrder as they were.
  Status boot(const BootImage& image, const BootOptions& options, std::ostream& log) override;
  // Deletes BootNext when it names one of this bisect's entries, then the entries.
  Status undo(std::ostream& log) override;

 private:
  struct Prepared {
    BootImage image;
    std::string entry;  // the EFI_LOAD_OPTION's bytes
    std::string shown;  // the entry for a person: its device path and command line
  };
  Result<EfiVars> open_variables() const;
  Result<UefiBootTemplate> read_template(const EfiVars& vars) const;
  Status check_partition(const UefiBootTemplate& found) const;
  Status check_running_image(const EfiVars& vars, const UefiBootTemplate& found) const;
  Result<std::string> esp_file_path(const std::string& path, std::string_view what) const;
  Result<Prepared> plan_entry(const UefiBootTemplate& found, const BootImage& image) const;
  Result<std::optional<uint16_t>> own_entry(const EfiVars& vars) const;
  Result<uint16_t> entry_number(const EfiVars& vars) const;
  Status write_entry(const EfiVars& vars, uint16_t number, std::ostream& log) const;

  const SysRoot& root_;
  std::string root_path_;
  std::string esp_;
  std::string efivars_;
  std::string bisect_id_;
  std::optional<Prepared> prepared_;
};

}  // namespace kdrift
