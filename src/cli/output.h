#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace kdrift {

// Snapshots, dumps and reports name hosts, serial numbers and addresses: only their owner reads
// them unless --mode says otherwise.
inline constexpr mode_t kDefaultOutputMode = 0600;

// --mode OCTAL (parse_file_mode) for a command that writes a file; mode keeps kDefaultOutputMode
// when not given.
void add_mode_option(CLI::App& command, mode_t& mode);

// Writes to stdout when path is empty or "-", else replaces the file atomically with the given
// permissions whatever the umask (write_file_atomically: a device, directory, FIFO or socket, or
// a symlink to one, is refused before anything is written). Failure is fatal: the user asked for
// that file.
void write_output(const std::string& path, std::string_view content,
                  mode_t mode = kDefaultOutputMode);

}  // namespace kdrift
