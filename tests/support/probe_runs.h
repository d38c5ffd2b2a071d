#pragma once
// Running `kdrift probe` from system tests and picking results out of its JSON.

#include <gtest/gtest.h>

#include <string>

#include "snapshot/snapshot.h"
#include "support/system.h"

namespace kdrift::testing {

#define REQUIRE_ROOT() \
  if (!::kdrift::testing::is_root()) GTEST_SKIP() << "needs root to create block devices"

// The probe section of `kdrift probe --format json ARGUMENTS`; a failed run is a test failure.
Json probe_json(const std::string& arguments);

// The job of that name; a test failure (and an empty object) when there is none.
const Json& job_named(const Json& probe, const std::string& name);

}  // namespace kdrift::testing
