#include "bisect/machine_step_host.h"

#include "util/text.h"

namespace kdrift {

Result<BootIdentity> MachineStepHost::boot_identity() {
  BootIdentity boot;
  for (const auto& [path, field] : {std::pair{"/proc/sys/kernel/random/boot_id", &boot.boot_id},
                                    std::pair{"/proc/sys/kernel/osrelease", &boot.release},
                                    std::pair{"/proc/cmdline", &boot.cmdline}}) {
    auto contents = root_.read(path);
    if (!contents) return contents.error();
    *field = std::string(trim(*contents));
  }
  return boot;
}

}  // namespace kdrift
