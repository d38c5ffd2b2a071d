#pragma once
// The parts of a step's host that are the machine itself: the running boot's identity read below
// a root, and kexec (the preflight and the image's files, then the load and jump). What measures a
// boot is the subclass's: the probe and the rules live in other modules.

#include <iosfwd>
#include <optional>

#include "bisect/step_loop.h"
#include "boot/kexec.h"
#include "util/sysroot.h"

namespace kdrift {

class KexecStepHost : public StepHost {
 public:
  // log: the kexec commands (and a dry run's); notes: what the preflight noticed.
  KexecStepHost(const SysRoot& root, std::ostream& log, std::ostream& notes)
      : root_(root), log_(log), notes_(notes) {}

  Result<BootIdentity> boot_identity() override;
  // The preflight, then image's files opened and checked (kexec_image.h); the preflight's
  // problems, each with its fix, or the file refused, are the error.
  Status prepare_kexec(const KexecImage& image) override;
  // Loads the descriptors prepare_kexec opened for this image: it must come first.
  Status kexec(const KexecImage& image, bool dry_run) override;

 protected:
  const SysRoot& root() const { return root_; }

 private:
  const SysRoot& root_;
  std::ostream& log_;
  std::ostream& notes_;
  std::optional<KexecPreflight> preflight_;
  KexecImage prepared_;
  std::optional<KexecFiles> files_;
};

}  // namespace kdrift
