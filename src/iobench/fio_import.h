#pragma once
// fio results users already have (--output-format=json or json+) turned into a probe section,
// so that `kdrift diff` compares them with kdrift's own runs or with each other.

#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

// source names the file in errors. Text before the first '{' (fio prints warnings there) is
// skipped. The JSON is bounded while parsing (fio_import.cpp says how and why).
Result<Json> import_fio(std::string_view text, const std::string& source);

// import_fio on a regular file (or standard input for "-") of at most 32 MiB.
Result<Json> import_fio_file(const std::string& path);

}  // namespace kdrift
