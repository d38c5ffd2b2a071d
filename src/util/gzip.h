#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace kdrift {

// Inflates a gzip stream's first member (/proc/config.gz, snapshots). Truncated or corrupt input
// is an error, as is output beyond max_bytes, and no more than max_bytes is allocated; context
// names the source in the message.
Result<std::string> gunzip(std::string_view compressed, const std::string& context,
                           size_t max_bytes = size_t{64} << 20);

// Deflates into a gzip stream (one member, default level), what gunzip and `gzip -d` read back.
// Fails only when zlib cannot allocate its state.
Result<std::string> gzip(std::string_view plain, const std::string& context);

}  // namespace kdrift
