#include "support/snapshots.h"

#include <fstream>
#include <map>
#include <sstream>

#include "collect/capture.h"
#include "support/fixtures.h"

namespace kdrift::testing {

const Json& fixture_snapshot(std::string_view name) {
  static std::map<std::string, Json, std::less<>> cache;
  const auto cached = cache.find(name);
  if (cached != cache.end()) return cached->second;
  Json snapshot;
  constexpr std::string_view kCommitted = "snapshot:";
  if (name.starts_with(kCommitted)) {
    const std::string path = source_dir() + "/tests/fixtures/snapshots/" +
                             std::string(name.substr(kCommitted.size())) + ".json.gz";
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    auto parsed = read_snapshot_text(bytes.str(), path);
    if (!parsed) throw std::runtime_error(parsed.error().describe());
    snapshot = std::move(*parsed);
  } else {
    snapshot = capture_snapshot(SysRoot(fixture_sysroot(name)));
  }
  return cache.emplace(std::string(name), std::move(snapshot)).first->second;
}

void write_fleet_host(const TempDir& dir, const std::string& host, std::string_view fixture) {
  Json snapshot = fixture_snapshot(fixture);
  snapshot["environment"]["hostname"] = host;
  dir.write(host + ".json", to_text(snapshot));
}

}  // namespace kdrift::testing
