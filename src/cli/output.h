#pragma once

#include <string>
#include <string_view>

namespace kdrift {

// Writes to stdout when path is empty or "-", else replaces the file atomically. Failure is fatal:
// the user asked for that file.
void write_output(const std::string& path, std::string_view content);

}  // namespace kdrift
