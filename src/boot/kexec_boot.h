#pragma once
// kexec as a bisect's boot method: the preflight and the image's files checked, then loaded from
// the descriptors that passed and jumped into. It changes no boot configuration, so there is
// nothing for `bisect reset` to undo.

#include <optional>
#include <ostream>

#include "boot/boot_method.h"
#include "boot/kexec.h"
#include "util/sysroot.h"

namespace kdrift {

class KexecBoot : public BootMethod {
 public:
  // notes: what the preflight noticed that does not block kexec.
  KexecBoot(const SysRoot& root, std::ostream& notes) : root_(root), notes_(notes) {}

  std::string_view name() const override { return "kexec"; }
  // The preflight's problems, each with its fix, or a file refused, are the error.
  Status prepare(const BootImage& image) override;
  // Loads the descriptors prepare opened for this image: it must come first. kexec leaves no
  // entry for a later boot: it jumps whatever options.reboot says (the command refuses that).
  Status boot(const BootImage& image, const BootOptions& options, std::ostream& log) override;
  Status undo(std::ostream&) override { return ok_status(); }

 private:
  const SysRoot& root_;
  std::ostream& notes_;
  std::optional<KexecPreflight> preflight_;
  BootImage prepared_;
  std::optional<KexecFiles> files_;
};

}  // namespace kdrift
