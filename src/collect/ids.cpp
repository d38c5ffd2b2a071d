#include "collect/ids.h"

#include <algorithm>
#include <limits>

#include "collect/facts.h"
#include "util/text.h"

namespace kdrift {

Result<std::vector<int>> parse_id_list(std::string_view text, std::string_view path) {
  auto ids = parse_cpu_list(text);
  if (ids) std::sort(ids->begin(), ids->end());
  if (!ids || (!ids->empty() && ids->back() > kMaxCpuId)) {
    return content_error(std::string(path) + ": expected a list of ids such as \"0-3,8\", found " +
                         quote_value(trim(text)));
  }
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  return std::move(*ids);
}

Result<IdList> read_id_list(const SysRoot& root, std::string_view path) {
  auto text = root.read_value(path);
  if (!text) return text.error();
  auto ids = parse_id_list(*text, path);
  if (!ids) return ids.error();
  return IdList{std::move(*text), std::move(*ids)};
}

bool put_id_list(Json& section, std::string_view key, const SysRoot& root, std::string_view path) {
  auto list = read_id_list(root, path);
  if (!list) {
    mark_unavailable(section, key, list.error());
    return false;
  }
  section[std::string(key)] = std::move(list->ids);
  return true;
}

std::vector<int> numbered_entries(const std::vector<std::string>& names, std::string_view prefix) {
  std::vector<int> ids;
  for (const auto& name : names) {
    if (!starts_with(name, prefix) || name.size() == prefix.size()) continue;
    const std::string_view digits = std::string_view(name).substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string_view::npos) continue;
    const auto id = parse_int(digits);
    if (id && *id <= std::numeric_limits<int>::max()) ids.push_back(static_cast<int>(*id));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace kdrift
