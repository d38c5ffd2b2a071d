#pragma once
// How a bisect step starts the next boot into a candidate: kexec jumps into it from this boot;
// a boot loader (GRUB, systemd-boot, the firmware's BootNext) is told to boot it once, on the
// next boot only, and the machine reboots through its firmware. Each is one BootMethod, so the
// step loop, the journal and `bisect reset` are the same whichever boots the candidate.

#include <ostream>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

struct BootImage {
  std::string kernel;
  std::string initrd;        // empty: none
  std::string command_line;  // passed whole, as one argument
  std::string label;         // what a boot menu shows beside kdrift's name (the candidate)
};

// Which boot loader a reboot bisect writes its one-shot entries through, and where that
// loader's files are on this host (GRUB's directory, or the EFI system partition's mount point),
// as `bisect start` found them and the journal keeps them.
struct LoaderPlace {
  std::string loader;     // "grub", "systemd-boot" or "uefi"
  std::string directory;  // absolute, below the root the step reads
};

// An absolute path of plain components (printable ASCII without spaces, none "." or "..", no
// empty one), at most 1024 bytes: what a journal may name as a loader's directory.
bool is_plain_absolute_path(std::string_view path);

struct BootOptions {
  bool dry_run = false;  // say on the log what would change; change nothing
  // A loader's entry is set but the machine is not rebooted: for a person who reboots when it
  // suits them, and for rehearsals below another root.
  bool reboot = true;
};

class BootMethod {
 public:
  virtual ~BootMethod() = default;
  // "kexec", "grub", "systemd-boot" or "uefi": what the journal and the reports name.
  virtual std::string_view name() const = 0;
  // Whether image can be booted this way (the machine, the loader's configuration, the image's
  // files), opening what the boot will use; changes nothing. The error says what blocks it and
  // how to fix it.
  virtual Status prepare(const BootImage& image) = 0;
  // Boots the image prepare accepted last: kexec loads and jumps; a loader writes its one-shot
  // entry for the next boot (the default entry stays what it was) and reboots. Returns only on a
  // dry run, without a reboot, or with an error; an error leaves the loader's default as it was.
  virtual Status boot(const BootImage& image, const BootOptions& options, std::ostream& log) = 0;
  // Removes every change this method made to the boot configuration for this bisect (`bisect
  // reset`); what is already gone is not an error. Says on log what it removed.
  virtual Status undo(std::ostream& log) = 0;
};

}  // namespace kdrift
