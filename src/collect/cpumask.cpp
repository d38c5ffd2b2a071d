#include "collect/cpumask.h"

#include "collect/ids.h"
#include "util/text.h"

namespace kdrift {

Result<std::vector<int>> parse_cpu_mask(std::string_view text, std::string_view path) {
  const auto fail = [&](std::string_view why) {
    return content_error(std::string(path) + ": " + std::string(why) + ", found " +
                         quote_value(text));
  };
  const auto words = split(trim(text), ',');
  // A word per 32 cpus: more words than kMaxCpuId allows means a corrupt file, not a big host.
  constexpr size_t kMaxWords = (kMaxCpuId + 1) / 32;
  if (words.empty() || words.size() > kMaxWords) {
    return fail("expected 1 to " + std::to_string(kMaxWords) + " comma-separated hex words");
  }
  std::vector<int> ids;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[words.size() - 1 - i];  // the lowest cpus come last
    if (word.empty() || word.size() > 8 ||
        word.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      return fail("expected hexadecimal words of at most 8 digits");
    }
    const auto bits = parse_uint("0x" + word);
    for (int bit = 0; bit < 32; ++bit) {
      if ((*bits >> bit) & 1U) ids.push_back(static_cast<int>(i) * 32 + bit);
    }
  }
  return ids;
}

std::string format_id_list(const std::vector<int>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size();) {
    size_t last = i;
    while (last + 1 < ids.size() && ids[last + 1] == ids[last] + 1)
      ++last;
    if (!text.empty()) text += ',';
    text += std::to_string(ids[i]);
    if (last > i) text += "-" + std::to_string(ids[last]);
    i = last + 1;
  }
  return text;
}

}  // namespace kdrift
