#include "boot/kexec_image.h"

#include <fcntl.h>

#include <cerrno>

#include "util/text.h"
#include "util/trusted_dir.h"

namespace kdrift {
namespace {

constexpr std::string_view kImageStakes =
    "whoever can change a kexec image or a directory on its way chooses the kernel root boots";

// A refusal of the trusted-directory walk, named for the image: EACCES, whatever judged it
// (an owner, a mode, a symlink, not a regular file); a failing lookup keeps its errno.
Error refused(const std::string& subject, const Error& error) {
  const bool judged = error.code == EPERM || error.code == ELOOP || error.code == 0;
  return make_error(judged ? EACCES : error.code, subject + ": " + error.context);
}

}  // namespace

Result<UniqueFd> open_kexec_image(const std::string& path, std::string_view what,
                                  uid_t trusted_uid) {
  const std::string subject = std::string(what) + " " + path;
  if (path.empty() || path.front() != '/') {
    return content_error(subject + ": not an absolute path (kexec images are named from /)");
  }
  const auto slash = path.rfind('/');
  const std::string name = path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    return content_error(subject + ": names no file");
  }
  for (const std::string& component : split(path, '/')) {
    if (component == "..") return content_error(subject + ": a \"..\" component");
  }
  // The directory may be a root-owned sticky one (/tmp): the image in it is judged on its own.
  const Trust trust{.user = trusted_uid, .sticky_holder = true, .stakes = kImageStakes};
  auto directory = TrustedDir::open(slash == 0 ? "/" : path.substr(0, slash),
                                    TrustedDir::Missing::kRefuse, 0755, trust);
  if (!directory) return refused(subject, directory.error());
  auto image = directory->open_trusted_file(name);
  if (!image) return refused(subject, image.error());
  return image;
}

Result<KexecFiles> open_kexec_files(const std::string& kernel, const std::string& initrd,
                                    uid_t trusted_uid) {
  if (kernel.empty()) return content_error("no kernel image given");
  KexecFiles files;
  auto kernel_fd = open_kexec_image(kernel, "kernel", trusted_uid);
  if (!kernel_fd) return kernel_fd.error();
  files.kernel = std::move(*kernel_fd);
  if (initrd.empty()) return files;
  auto initrd_fd = open_kexec_image(initrd, "initrd", trusted_uid);
  if (!initrd_fd) return initrd_fd.error();
  files.initrd = std::move(*initrd_fd);
  return files;
}

}  // namespace kdrift
