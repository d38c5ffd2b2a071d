#pragma once
// How collectors put values into a snapshot section. Anything that cannot be read is recorded in
// the section's "unavailable" object (key -> reason), never left as a silent blank or a zero.

#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/result.h"
#include "util/sysroot.h"

namespace kdrift {

inline constexpr std::string_view kUnavailableKey = "unavailable";

void mark_unavailable(Json& section, std::string_view key, std::string reason);
void mark_unavailable(Json& section, std::string_view key, const Error& error);

// A sysfs/procfs value as JSON: an integer when the whole text is one, otherwise the text.
Json typed_value(std::string_view text);

// Reads path into section[key] (typed_value) or records why not. Returns whether it was read.
bool put_value(Json& section, std::string_view key, const SysRoot& root, std::string_view path);
// Same, kept as text even when it looks like a number (versions, ids, bitmaps).
bool put_text(Json& section, std::string_view key, const SysRoot& root, std::string_view path);
// Same, but the value must be an integer; anything else is recorded as unavailable with the text.
bool put_int(Json& section, std::string_view key, const SysRoot& root, std::string_view path);

// A size in 512-byte sectors (block devices count so whatever their logical block size) into
// section[key], and in bytes into section[key + "_bytes"].
bool put_sectors(Json& section, std::string_view key, const SysRoot& root, std::string_view path);

// Every readable regular file of a directory as key -> typed value (module parameters, queue
// attributes); subdirectories are skipped, unreadable files recorded as unavailable.
Json read_attribute_directory(const SysRoot& root, std::string_view directory);

}  // namespace kdrift
