#pragma once

#include <string>
#include <string_view>

namespace kdrift {

// Writes to stdout when path is empty or "-", else replaces the file atomically. Failure is fatal:
// the user asked for that file.
void write_output(const std::string& path, std::string_view content);

// Reads a file the user named; failure is fatal (exit 2) with the path and the reason.
std::string read_input(const std::string& path);

}  // namespace kdrift
