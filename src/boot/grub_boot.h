#pragma once
// A candidate booted once through GRUB, as grub-reboot does it: kdrift's menu entry for the
// candidate goes into custom.cfg (which Debian's grub.cfg sources, so no update-grub is needed
// and the generated grub.cfg is never edited), and grubenv's next_entry names it. GRUB boots
// that entry on the next boot only, clearing next_entry as it does; the default entry, and so
// every boot after, stays what it was. The entry is the candidate's own grub.cfg entry (its disk
// lookup, kernel and initrd) with the candidate's command line, never the `savedefault` or
// `recordfail` that would make it the default or stop the next boot at the menu; a kernel no
// entry boots (one kdrift built) is copied to /boot/kdrift-<id>/ and booted the way the running
// kernel's entry finds its disk.

#include <optional>
#include <string>

#include "boot/boot_method.h"
#include "boot/grub_config.h"
#include "util/sysroot.h"
#include "util/trusted_dir.h"
#include "util/unique_fd.h"

namespace kdrift {

class GrubBoot : public BootMethod {
 public:
  // directory: GRUB's, /boot/grub on Debian, below root_path; running_cmdline: this boot's
  // /proc/cmdline, whose BOOT_IMAGE= names the running kernel's entry.
  GrubBoot(const SysRoot& root, std::string root_path, std::string directory, std::string bisect_id,
           std::string running_cmdline);

  std::string_view name() const override { return "grub"; }
  // grub.cfg parsed and able to boot an entry once (load_env, next_entry cleared by save_env,
  // custom.cfg sourced), grubenv present, parsed and writable on a filesystem GRUB can write,
  // and the candidate's files and command line: each refusal says what to fix.
  Status prepare(const BootImage& image) override;
  // The loader's part of prepare, for a survey of this host's boot modes.
  Result<GrubConfig> check_loader() const;
  Status boot(const BootImage& image, const BootOptions& options, std::ostream& log) override;
  // kdrift's block out of custom.cfg (the file removed when nothing else is in it), next_entry
  // out of grubenv when it names kdrift's entry, /boot/kdrift-<id>/ removed.
  Status undo(std::ostream& log) override;

  // The custom.cfg text with this bisect's block replaced by entry (empty: removed).
  std::string custom_config_with(std::string_view current, std::string_view entry) const;

 private:
  struct Prepared {
    BootImage image;
    std::string entry_text;   // kdrift's block for custom.cfg
    std::string copy_kernel;  // host path to copy into /boot/kdrift-<id>/, or empty
    std::string copy_initrd;
    UniqueFd kernel_file;  // the files checked, what a copy reads
    UniqueFd initrd_file;
  };
  Result<TrustedDir> open_grub_directory() const;
  Result<Prepared> plan_entry(const GrubConfig& config, const BootImage& image) const;
  Status copy_candidate_files(const Prepared& prepared) const;

  const SysRoot& root_;
  std::string root_path_;
  std::string directory_;
  std::string bisect_id_;
  std::string running_cmdline_;
  std::optional<Prepared> prepared_;
};

}  // namespace kdrift
