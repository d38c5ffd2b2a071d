#include "model/percentile_set.h"

#include <cstdio>

namespace kdrift {

std::string percentile_key(double percentile) {
  char key[32];
  (void)std::snprintf(key, sizeof key, "%f", percentile);
  return key;
}

std::string percentile_label(std::string key) {
  if (key.find('.') != std::string::npos) {
    while (key.ends_with('0'))
      key.pop_back();
    if (key.ends_with('.')) key.pop_back();
  }
  return key;
}

const TrackedPercentile* PercentileSet::by_label(std::string_view label) const {
  for (const auto& percentile : items_) {
    if (percentile.label == label) return &percentile;
  }
  return nullptr;
}

}  // namespace kdrift
