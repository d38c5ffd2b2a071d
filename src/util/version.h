#pragma once

namespace kdrift {

// "0.2.0" for a package, "0.2.0-g1a2b3c4" or "0.2.0-14-g1a2b3c4-dirty" from a git checkout: set
// at build time by cmake/version.cmake, in a source of its own so that only it changes.
extern const char* const kKdriftVersion;

}  // namespace kdrift
