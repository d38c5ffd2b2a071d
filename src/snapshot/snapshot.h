#pragma once
// The snapshot document: one JSON object, "schema": "kdrift.snapshot/1". nlohmann::json keeps
// object keys sorted, which gives the deterministic key order the contract promises.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/bounded_json.h"
#include "util/result.h"

namespace kdrift {

using Json = nlohmann::json;

inline constexpr std::string_view kSnapshotSchema = "kdrift.snapshot/1";

// Sections whose content depends on when and how the capture ran rather than on the host's
// files (timings, the tool's own version): left out when two captures are compared for equality.
inline constexpr std::string_view kCaptureMetaSection = "capture";

// {"schema", "capture": {tool, version, captured_at}}: the envelope every snapshot starts from,
// a full capture or a probe-only document.
Json new_snapshot();

// Serialises with two-space indentation and a final newline; invalid UTF-8 is replaced, so
// serialising never throws.
std::string to_text(const Json& snapshot);

// Parses and validates the envelope (object, known schema, every section an object). Errors name
// the file. Deeper values of the wrong type are read as absent by the code that uses them. More
// than a million values or 64 levels of nesting is refused while parsing (snapshot.cpp says why).
Result<Json> parse_snapshot(std::string_view text, const std::string& source_name);

// parse_snapshot on a file's bytes, gunzipped first when they are gzip data (inflating stops at
// 32 MiB, the limit on a snapshot's text).
Result<Json> read_snapshot_text(std::string_view bytes, const std::string& source_name);

// The same, building only the members keep accepts (null: all).
Result<Json> read_snapshot_text(std::string_view bytes, const std::string& source_name,
                                const JsonMemberFilter* keep);

// The most bytes of snapshot text (after gunzip) and so of a snapshot file.
inline constexpr size_t kMaxSnapshotTextBytes = size_t{32} << 20;

// read_snapshot_text on a regular file of at most 32 MiB, or standard input for "-".
Result<Json> read_snapshot_file(const std::string& path);

// The same, building only the members keep accepts (util/bounded_json.h): the envelope is
// checked and the limits hold as for a whole read.
Result<Json> read_snapshot_file(const std::string& path, const JsonMemberFilter& keep);

}  // namespace kdrift
