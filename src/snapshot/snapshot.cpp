#include "snapshot/snapshot.h"

#include <ctime>

#include "util/gzip.h"
#include "util/version.h"

namespace kdrift {

namespace {

constexpr int kMaxNesting = 64;

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
  Json document;
  // Everything that walks a snapshot recurses once per level; a hostile file nested a million
  // deep must be refused here, not overflow the stack later. Real snapshots nest under 12 deep.
  bool too_deep = false;
  const auto limit_depth = [&too_deep](int depth, Json::parse_event_t, Json&) {
    too_deep = too_deep || depth > kMaxNesting;
    return !too_deep;
  };
  try {
    document = Json::parse(text, limit_depth);
  } catch (const Json::exception& error) {  // parse_error, and out_of_range for a huge number
    return content_error(source_name + ": not valid JSON (" + error.what() + ")");
  }
  if (too_deep) {
    return content_error(source_name + ": nested deeper than " + std::to_string(kMaxNesting) +
                         " levels: not a kdrift snapshot");
  }
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
  return document;
}

Result<Json> read_snapshot_text(std::string_view bytes, const std::string& source_name) {
  // gzip's magic: snapshots are often kept compressed (a 350 KB capture packs to ~30 KB).
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    auto text = gunzip(bytes, source_name);
    if (!text) return text.error();
    return parse_snapshot(*text, source_name);
  }
  return parse_snapshot(bytes, source_name);
}

}  // namespace kdrift
