#pragma once
// Where a directory lies against a source tree, compared as git prints paths (absolute, links
// resolved): kdrift's work tree and its build output must lie outside the tree they come from,
// since a checkout there cleans every file git does not track.

#include <string>

namespace kdrift {

// path absolute, with its existing part's symlinks resolved and no trailing '/'.
std::string canonical_path(const std::string& path);

// Whether path is directory or below it; both canonical.
bool is_within(const std::string& path, const std::string& directory);

}  // namespace kdrift
