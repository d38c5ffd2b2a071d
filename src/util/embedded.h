#pragma once
// Text files compiled into the binary (profiles/*.toml, checks/*.toml) by cmake/embed.cmake.

#include <span>
#include <string_view>

namespace kdrift {

struct EmbeddedText {
  std::string_view name;
  std::string_view text;
};

}  // namespace kdrift
