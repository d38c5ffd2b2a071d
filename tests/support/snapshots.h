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

}  // namespace kdrift::testing
