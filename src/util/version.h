#pragma once

namespace kdrift {

// Set by CMake from the project version.
inline constexpr const char* kKdriftVersion = KDRIFT_VERSION;

}  // namespace kdrift
