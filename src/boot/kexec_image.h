#pragma once
// The files kexec boots as root: whoever can write a kernel image, or any directory on its way,
// chooses the kernel the machine runs next. So an image's directory is opened as a TrustedDir
// (util/trusted_dir.h: from "/" one component at a time on descriptors, no symbolic link, every
// directory owned by root or the user running kdrift and writable by nobody else, as sudo and
// OpenSSH's safe_path judge a path), where a root-owned sticky directory such as /tmp may hold
// it, and the image itself must be a regular file with the same owners and no group or other
// write bit. The descriptor that passed is the one loaded, so a path swapped after the check
// changes nothing.

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"
#include "util/unique_fd.h"

namespace kdrift {

// path opened O_RDONLY|O_NOFOLLOW|O_CLOEXEC below the checked directories, or EACCES (or the
// open's errno) whose context names what (kernel, initrd), the path, the offending component,
// its owner and why. trusted_uid is the user besides root whose files are trusted: the one
// running kdrift.
Result<UniqueFd> open_kexec_image(const std::string& path, std::string_view what,
                                  uid_t trusted_uid = ::geteuid());

// A candidate's kernel and initrd, each opened once by open_kexec_image: what kexec loads.
struct KexecFiles {
  UniqueFd kernel;
  UniqueFd initrd;  // not open: the candidate has none
};

// An empty initrd path is none; an empty kernel path is an error.
Result<KexecFiles> open_kexec_files(const std::string& kernel, const std::string& initrd,
                                    uid_t trusted_uid = ::geteuid());

// How much of a kernel image pe_image_signed needs: its PE headers lie in the first few hundred
// bytes of an EFI-stub bzImage.
constexpr size_t kPeHeadBytes = 64 * 1024;

// Whether a kernel image, given by its first kPeHeadBytes, carries an Authenticode signature: a
// PE image (an EFI-stub bzImage) whose certificate table is not empty, which is what a
// locked-down kernel's kexec_file_load verifies (sbsign writes it; Debian's
// linux-image-*-unsigned have none). Not a PE image, or headers beyond head: false.
bool pe_image_signed(std::string_view head);

}  // namespace kdrift
