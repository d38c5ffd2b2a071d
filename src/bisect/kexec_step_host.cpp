#include "bisect/kexec_step_host.h"

#include <cstdlib>
#include <ostream>

#include "util/text.h"

namespace kdrift {

Result<BootIdentity> KexecStepHost::boot_identity() {
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

Status KexecStepHost::prepare_kexec() {
  const char* path = std::getenv("PATH");
  KexecPreflight preflight =
      kexec_preflight(root_, path != nullptr ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
  for (const std::string& note : preflight.notes)
    notes_ << "kexec: " << note << "\n";
  if (!preflight.ok()) {
    std::string problems;
    for (const std::string& problem : preflight.problems)
      problems += "\n  " + problem;
    return content_error("bisect step: this machine cannot kexec (nothing recorded):" + problems);
  }
  preflight_ = std::move(preflight);
  return ok_status();
}

Status KexecStepHost::kexec(const KexecImage& image, bool dry_run) {
  if (!preflight_) return content_error("bisect step: kexec before its preflight");
  return kexec_into(*preflight_, image, systemd_is_pid1(root_), dry_run, log_);
}

}  // namespace kdrift
