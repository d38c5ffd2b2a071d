#pragma once
// The files kdrift keeps itself (bisect journal and state, boot history, applied-knob records):
// written so that a crash never leaves a torn file (read back through util/input_file.h).

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

// Replaces path with content so that a crash leaves either the old or the new file, never a
// torn one: temp file in the same directory, fsync, rename, fsync the directory.
Status write_file_atomically(const std::string& path, std::string_view content);

}  // namespace kdrift
