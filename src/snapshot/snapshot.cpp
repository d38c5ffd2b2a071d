#include "snapshot/snapshot.h"

#include <ctime>

#include "snapshot/sections.h"
#include "util/bounded_json.h"
#include "util/gzip.h"
#include "util/input_file.h"
#include "util/version.h"

namespace kdrift {

namespace {

// The largest real snapshot in tests/fixtures/snapshots (intel-lazy) is 1.7 MB of JSON holding
// 48,000 values, 10 levels deep; a host with twenty times its devices, CPUs and interrupts still
// fits these. Everything that walks a snapshot recurses once per level, and each value costs
// 50-100 bytes once built, so the limits also bound the stack and the memory a hostile file can
// take: 32 MiB of text (after gunzip, kMaxSnapshotTextBytes), a million values, 64 levels.
constexpr JsonLimits kSnapshotLimits{.max_depth = 64, .max_values = 1'000'000};

static_assert(find_section(kCaptureMetaSection)->source == SectionSource::kCaptureMeta);

}  // namespace

Json new_snapshot() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32] = "?";
  if (std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts) == 0) text[0] = '\0';
  return {{"schema", kSnapshotSchema},
          {std::string(kCaptureMetaSection),
           {{"tool", "kdrift"}, {"version", kKdriftVersion}, {"captured_at", text}}}};
}

// Sysfs text is not always UTF-8 (garbage values, odd DMI strings): replace such bytes rather
// than throw.
std::string to_text(const Json& snapshot) {
  return snapshot.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

Result<Json> validated_envelope(Result<Json> parsed, const std::string& source_name) {
  if (!parsed) return parsed.error();
  const Json& document = *parsed;
  if (!document.is_object()) return content_error(source_name + ": not a JSON object");
  const auto schema = document.find("schema");
  if (schema == document.end() || !schema->is_string()) {
    return content_error(source_name + ": no \"schema\" string: not a kdrift snapshot");
  }
  if (schema->get<std::string>() != kSnapshotSchema) {
    return content_error(source_name + ": schema \"" + schema->get<std::string>() +
                         "\" is not supported (this kdrift reads " + std::string(kSnapshotSchema) +
                         ")");
  }
  for (const SnapshotSection& section : kSnapshotSections) {
    const auto found = document.find(section.name);
    if (found != document.end() && !found->is_object()) {
      return content_error(source_name + ": section \"" + std::string(section.name) + "\" is a " +
                           found->type_name() + ", not an object");
    }
  }
  return parsed;
}

Result<Json> parse_snapshot_filtered(std::string_view text, const std::string& source_name,
                                     const JsonMemberFilter* keep) {
  if (keep == nullptr) {
    return validated_envelope(parse_bounded_json(text, source_name, kSnapshotLimits), source_name);
  }
  return validated_envelope(parse_bounded_json(text, source_name, kSnapshotLimits, *keep),
                            source_name);
}

}  // namespace

Result<Json> read_snapshot_text(std::string_view bytes, const std::string& source_name,
                                const JsonMemberFilter* keep) {
  // gzip's magic: snapshots are often kept compressed (a 350 KB capture packs to ~30 KB).
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    auto text = gunzip(bytes, source_name, kMaxSnapshotTextBytes);
    if (!text) return text.error();
    return parse_snapshot_filtered(*text, source_name, keep);
  }
  return parse_snapshot_filtered(bytes, source_name, keep);
}

namespace {

Result<Json> read_snapshot_file_filtered(const std::string& path, const JsonMemberFilter* keep) {
  // Packed snapshots are smaller than their text, so the text's limit bounds the file too.
  auto bytes = read_whole_file(path, kMaxSnapshotTextBytes);
  if (!bytes) return bytes.error();
  return read_snapshot_text(*bytes, path, keep);
}

}  // namespace

Result<Json> parse_snapshot(std::string_view text, const std::string& source_name) {
  return parse_snapshot_filtered(text, source_name, nullptr);
}

Result<Json> read_snapshot_text(std::string_view bytes, const std::string& source_name) {
  return read_snapshot_text(bytes, source_name, nullptr);
}

Result<Json> read_snapshot_file(const std::string& path) {
  return read_snapshot_file_filtered(path, nullptr);
}

Result<Json> read_snapshot_file(const std::string& path, const JsonMemberFilter& keep) {
  return read_snapshot_file_filtered(path, &keep);
}

}  // namespace kdrift
