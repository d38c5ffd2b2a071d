#pragma once
// Snapshots for the diff and checks tests: a fixture sysroot captured once per process (capture
// of a 350 KB dump takes ~0.1 s, and the cases reuse a handful of fixtures), or a committed
// snapshot from tests/fixtures/snapshots/.

#include <string>
#include <string_view>

#include "snapshot/snapshot.h"

namespace kdrift::testing {

// "no-iommu" -> capture of tests/fixtures/sysroots/no-iommu.tar.gz; "snapshot:NAME" ->
// tests/fixtures/snapshots/NAME.json.gz.
const Json& fixture_snapshot(std::string_view name);

class TempDir;
// Writes a fixture snapshot as host HOST's, DIR/HOST.json with its hostname set: a fleet member.
void write_fleet_host(const TempDir& dir, const std::string& host, std::string_view fixture);

}  // namespace kdrift::testing
