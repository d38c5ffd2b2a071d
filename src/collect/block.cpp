#include "collect/block.h"

#include "collect/facts.h"

namespace kdrift {

Json collect_block(const SysRoot& /*root*/) {
  Json section = Json::object();
  mark_unavailable(section, "*", "collector under construction");
  return section;
}

}  // namespace kdrift
