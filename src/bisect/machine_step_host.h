#pragma once
// The parts of a step's host that are the machine itself: the running boot's identity read below
// a root, and the boot method that starts the next boot (kexec, or a boot loader's one-shot
// entry and a reboot). What measures a boot is the subclass's: the probe and the rules live in
// other modules.

#include "bisect/step_loop.h"
#include "boot/boot_method.h"
#include "util/sysroot.h"

namespace kdrift {

class MachineStepHost : public StepHost {
 public:
  // log: what the boot method does (and a dry run's commands).
  MachineStepHost(const SysRoot& root, BootMethod& method, std::ostream& log, bool reboot)
      : root_(root), method_(method), log_(log), reboot_(reboot) {}

  Result<BootIdentity> boot_identity() override;
  Status prepare_boot(const BootImage& image) override { return method_.prepare(image); }
  Status start_boot(const BootImage& image, bool dry_run) override {
    return method_.boot(image, {dry_run, reboot_}, log_);
  }

 protected:
  const SysRoot& root() const { return root_; }

 private:
  const SysRoot& root_;
  BootMethod& method_;
  std::ostream& log_;
  bool reboot_;
};

}  // namespace kdrift
