#include "util/access_log.h"

namespace kdrift {

std::set<std::string> AccessLog::unread_files() const {
  std::set<std::string> unread;
  for (const auto& path : listed_files_) {
    if (files_.count(path) == 0) unread.insert(path);
  }
  return unread;
}

}  // namespace kdrift
