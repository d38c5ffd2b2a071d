#include "kbuild/tree_paths.h"

#include <filesystem>

#include "util/text.h"

namespace kdrift {

std::string canonical_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  std::string result = fs::weakly_canonical(fs::absolute(path, ignored), ignored).string();
  while (result.size() > 1 && result.back() == '/')
    result.pop_back();
  return result;
}

bool is_within(const std::string& path, const std::string& directory) {
  return path == directory || starts_with(path, directory == "/" ? directory : directory + "/");
}

}  // namespace kdrift
