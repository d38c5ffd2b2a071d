#include "collect/proc_version.h"

#include "util/text.h"

namespace kdrift {

Result<ProcVersion> parse_proc_version(std::string_view text) {
  const auto fail = [&](std::string_view why) {
    return content_error("/proc/version: " + std::string(why) + ", found " + quote_value(text));
  };
  constexpr std::string_view kPrefix = "Linux version ";
  std::string_view rest = trim(text);
  if (!starts_with(rest, kPrefix)) return fail("expected \"Linux version \" first");
  rest.remove_prefix(kPrefix.size());
  const auto release_end = rest.find_first_of(" \t");
  ProcVersion parsed;
  parsed.release = std::string(rest.substr(0, release_end));
  if (parsed.release.empty() || release_end == std::string_view::npos) {
    return fail("expected a release and a version");
  }
  rest.remove_prefix(release_end);
  // Builder, compiler and linker: groups of balanced parentheses, separated by spaces.
  while (true) {
    rest = trim(rest);
    if (rest.empty() || rest.front() != '(') break;
    size_t depth = 0;
    size_t at = 0;
    for (; at < rest.size(); ++at) {
      if (rest[at] == '(') ++depth;
      if (rest[at] == ')' && --depth == 0) break;
    }
    if (at == rest.size()) return fail("unbalanced parentheses");
    rest.remove_prefix(at + 1);
  }
  if (!starts_with(rest, "#")) return fail("expected the version (\"#1 SMP …\") after the release");
  parsed.version = std::string(rest);
  return parsed;
}

}  // namespace kdrift
