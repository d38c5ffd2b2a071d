#pragma once
// The files kdrift keeps itself (bisect journal and state, boot history, applied-knob records):
// written so that a crash never leaves a torn file (read back through util/input_file.h).

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

// Replaces path with content so that a crash leaves either the old or the new file, never a
// torn one, and so that nothing planted at path or beside it is written through: path's
// directory is opened once; a file with a random name is created in it (O_EXCL, O_NOFOLLOW),
// written, fsync'd, given mode whatever the umask, renamed over path within that directory, and
// the directory fsync'd. A path that exists as anything but a regular file (device, directory,
// FIFO, socket), or as a symlink to one, is refused before anything is created. A symlink to a
// regular file (or to nothing) is replaced by the rename: the file it points to is never touched.
Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode = 0600);

// The same below a directory already open (O_RDONLY, for its fsync): name is one entry of it,
// never a path, and shown names the file in errors. What write_file_atomically does once it has
// opened path's directory, and what a directory kdrift keeps state in is written through
// (util/trusted_dir.h).
Status write_file_atomically_at(int directory, const std::string& name, const std::string& shown,
                                std::string_view content, mode_t mode = 0600);

// "0640" or "640" -> 0640, for a file write_file_atomically makes: permission bits in octal,
// never setuid, setgid or sticky (nothing kdrift writes is a program or a shared directory).
// An error naming the text otherwise.
Result<mode_t> parse_file_mode(std::string_view octal);

}  // namespace kdrift
