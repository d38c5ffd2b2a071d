#pragma once
// The one reader of every file kdrift is given or keeps (snapshots, rules, profiles, fio output,
// candidate lists, the bisect journal and records): opened once without blocking, checked on the
// descriptor to be a regular file, read whole up to a size limit. A FIFO, a device or a
// directory named where a file belongs is refused at once rather than read forever.

#include <cstddef>
#include <string>

#include "util/result.h"

namespace kdrift {

// The whole file, or standard input when path is "-" (limited the same way). More than max_bytes
// is an error (EFBIG naming the path and the limit), never silently cut; so is anything but a
// regular file. Errors name the path (ENOENT when it does not exist).
Result<std::string> read_whole_file(const std::string& path, size_t max_bytes);

// As read_whole_file, for the entry name of the open directory, never through a symlink (ELOOP):
// how the files kdrift keeps in its own directories are read (util/trusted_dir.h). shown names
// the file in errors.
Result<std::string> read_whole_file_at(int directory, const std::string& name,
                                       const std::string& shown, size_t max_bytes);

// What read_descriptor does on reaching max_bytes: refuse (EFBIG), or stop and keep the head.
enum class AtLimit { kRefuse, kStop };

// Where read_descriptor takes a file to end: at a read that returns nothing, or also at a first
// read shorter than a page and than asked for, which for a sysfs attribute is the whole of it
// (util/kernel_mounts.h) and spares the read that would return nothing.
enum class FileEnd { kAtEmptyRead, kAtShortFirstPage };

// The rest of an open descriptor, to its end even when the file grows meanwhile. Errors carry the
// errno only (EFBIG past max_bytes with AtLimit::kRefuse) and no context: the caller names what it
// read. The one read loop under read_whole_file and the sysroot's directory reads.
Result<std::string> read_descriptor(int fd, size_t max_bytes, AtLimit at_limit = AtLimit::kRefuse,
                                    FileEnd end = FileEnd::kAtEmptyRead);

// The error read_whole_file gives for input over max_bytes, for readers that are handed text.
Error size_limit_error(const std::string& source, size_t max_bytes);

}  // namespace kdrift
