#include "boot/kexec_boot.h"

#include <cstdlib>

#include "util/text.h"

namespace kdrift {

Status KexecBoot::prepare(const BootImage& image) {
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

Status KexecBoot::boot(const BootImage& image, const BootOptions& options, std::ostream& log) {
  if (!preflight_ || !files_ || image.kernel != prepared_.kernel ||
      image.initrd != prepared_.initrd) {
    return content_error("bisect step: kexec of an image its preflight did not open");
  }
  return kexec_into(*preflight_, image, *files_, systemd_is_pid1(root_), options.dry_run, log);
}

}  // namespace kdrift
