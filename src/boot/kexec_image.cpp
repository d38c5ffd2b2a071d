#include "boot/kexec_image.h"

#include <fcntl.h>

#include <cerrno>
#include <cstdint>
#include <optional>

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

// The PE/COFF layout (Microsoft's PE Format specification): the DOS header's e_lfanew at 0x3c
// points at "PE\0\0", a 20-byte COFF header and the optional header, whose data directories
// start 96 bytes in for PE32 and 112 for PE32+; the certificate table is directory 4, 8 bytes
// each (address, size).
constexpr size_t kPeOffsetField = 0x3c;
constexpr size_t kCoffHeaderEnd = 24;
constexpr uint32_t kPe32Magic = 0x10b;
constexpr uint32_t kPe32PlusMagic = 0x20b;
constexpr uint32_t kCertificateTable = 4;

// The little-endian word of bytes at at, or nullopt past the end of head.
std::optional<uint32_t> little_endian(std::string_view head, size_t at, size_t bytes) {
  if (at > head.size() || head.size() - at < bytes) return std::nullopt;
  uint32_t value = 0;
  for (size_t i = bytes; i > 0; --i)
    value = (value << 8U) | static_cast<unsigned char>(head[at + i - 1]);
  return value;
}

}  // namespace

bool pe_image_signed(std::string_view head) {
  const auto pe = little_endian(head, kPeOffsetField, 4);
  if (!pe || *pe > head.size() || head.substr(0, 2) != "MZ" ||
      head.substr(*pe, 4) != std::string_view("PE\0\0", 4)) {
    return false;
  }
  const size_t optional = *pe + kCoffHeaderEnd;
  const auto magic = little_endian(head, optional, 2);
  if (!magic || (*magic != kPe32Magic && *magic != kPe32PlusMagic)) return false;
  const size_t directories = optional + (*magic == kPe32PlusMagic ? 112 : 96);
  const auto count = little_endian(head, directories - 4, 4);  // NumberOfRvaAndSizes
  if (!count || *count <= kCertificateTable) return false;
  const auto size = little_endian(head, directories + 8 * kCertificateTable + 4, 4);
  return size && *size != 0;
}

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
