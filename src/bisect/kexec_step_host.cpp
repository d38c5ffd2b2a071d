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

Status KexecStepHost::prepare_kexec(const KexecImage& image) {
  const char* path = std::getenv("PATH");
  KexecPreflight preflight =
      kexec_preflight(root_, path != nullptr ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
  for (const std::string& note : preflight.notes)
    notes_ << "kexec: " << terminal_safe(note) << "\n";
  if (!preflight.ok()) {
    std::string problems;
    for (const std::string& problem : preflight.problems)
      problems += "\n  " + problem;
    return content_error("bisect step: this machine cannot kexec (nothing recorded):" + problems);
  }
  auto files = open_kexec_files(image.kernel, image.initrd);
  if (!files) {
    return make_error(files.error().code,
                      "bisect step: " + files.error().context + " (nothing recorded)");
  }
  preflight_ = std::move(preflight);
  prepared_ = image;
  files_ = std::move(*files);
  return ok_status();
}

Status KexecStepHost::kexec(const KexecImage& image, bool dry_run) {
  if (!preflight_ || !files_ || image.kernel != prepared_.kernel ||
      image.initrd != prepared_.initrd) {
    return content_error("bisect step: kexec of an image its preflight did not open");
  }
  return kexec_into(*preflight_, image, *files_, systemd_is_pid1(root_), dry_run, log_);
}

}  // namespace kdrift
