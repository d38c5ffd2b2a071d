#pragma once
// A candidate booted once through systemd-boot, as `bootctl set-oneshot` does it: kdrift's
// Boot Loader Specification entry (loader/entries/kdrift-<id>.conf on the ESP) and the EFI
// variable LoaderEntryOneShot naming it. systemd-boot boots that entry on the next boot only and
// removes the variable as it does; loader.conf's default, and so every boot after, stays what it
// was. The entry is the candidate's own (its kernel and initrd on the ESP, found by path or
// version) with the candidate's command line; a kernel no entry boots (one kdrift built) is
// copied to the ESP's kdrift-<id>/.

#include <optional>
#include <string>
#include <vector>

#include "boot/bls_entry.h"
#include "boot/boot_method.h"
#include "util/sysroot.h"
#include "util/trusted_dir.h"
#include "util/unique_fd.h"

namespace kdrift {

class SystemdBoot : public BootMethod {
 public:
  // esp: where the EFI system partition (or XBOOTLDR) holding loader/entries is mounted, below
  // root_path.
  SystemdBoot(const SysRoot& root, std::string root_path, std::string esp, std::string bisect_id);

  std::string_view name() const override { return "systemd-boot"; }
  // The ESP mounted with loader/entries, every entry there readable, efivarfs writable.
  Result<std::vector<BlsEntry>> check_loader() const;
  Status prepare(const BootImage& image) override;
  Status boot(const BootImage& image, const BootOptions& options, std::ostream& log) override;
  // kdrift's entry file, LoaderEntryOneShot when it names it, the ESP's kdrift-<id>/.
  Status undo(std::ostream& log) override;

 private:
  struct Prepared {
    BootImage image;
    std::string entry_text;
    std::string copy_kernel;  // host paths to copy into the ESP's kdrift-<id>/, or empty
    std::string copy_initrd;
    UniqueFd kernel_file;
    UniqueFd initrd_file;
  };
  Result<TrustedDir> open_entries() const;
  Result<Prepared> plan_entry(const std::vector<BlsEntry>& entries, const BootImage& image) const;
  Status copy_candidate_files(const Prepared& prepared) const;

  const SysRoot& root_;
  std::string root_path_;
  std::string esp_;
  std::string bisect_id_;
  std::optional<Prepared> prepared_;
};

}  // namespace kdrift
