#pragma once
// The files kdrift keeps itself (bisect journal and state, boot history, applied-knob records):
// written so that a crash never leaves a torn file, read whole with a size limit.

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

// Replaces path with content so that a crash leaves either the old or the new file, never a
// torn one: temp file in the same directory, fsync, rename, fsync the directory.
Status write_file_atomically(const std::string& path, std::string_view content);

// The whole file; more than max_bytes is an error (EFBIG), never silently cut. Errors name the
// path (ENOENT when it does not exist).
Result<std::string> read_whole_file(const std::string& path, size_t max_bytes);

}  // namespace kdrift
