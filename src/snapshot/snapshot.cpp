#include "snapshot/snapshot.h"

#include <ctime>

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
// take: 32 MiB of text (after gunzip), a million values, 64 levels.
constexpr size_t kMaxSnapshotTextBytes = size_t{32} << 20;
constexpr JsonLimits kSnapshotLimits{.max_depth = 64, .max_values = 1'000'000};

constexpr const char* kSectionNames[] = {"capture",     "kernel", "iommu", "nvme",   "block",
                                         "pci",         "cpu",    "numa",  "sysctl", "memory",
                                         "environment", "irq",    "probe"};

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

Result<Json> parse_snapshot(std::string_view text, const std::string& source_name) {
  auto parsed = parse_bounded_json(text, source_name, kSnapshotLimits);
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
  for (const char* section : kSectionNames) {
    const auto found = document.find(section);
    if (found != document.end() && !found->is_object()) {
      return content_error(source_name + ": section \"" + section + "\" is a " +
                           found->type_name() + ", not an object");
    }
  }
  return parsed;
}

Result<Json> read_snapshot_text(std::string_view bytes, const std::string& source_name) {
  // gzip's magic: snapshots are often kept compressed (a 350 KB capture packs to ~30 KB).
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    auto text = gunzip(bytes, source_name, kMaxSnapshotTextBytes);
    if (!text) return text.error();
    return parse_snapshot(*text, source_name);
  }
  return parse_snapshot(bytes, source_name);
}

Result<Json> read_snapshot_file(const std::string& path) {
  // Packed snapshots are smaller than their text, so the text's limit bounds the file too.
  auto bytes = read_whole_file(path, kMaxSnapshotTextBytes);
  if (!bytes) return bytes.error();
  return read_snapshot_text(*bytes, path);
}

}  // namespace kdrift
