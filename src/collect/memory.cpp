#include "collect/memory.h"

#include "collect/facts.h"

namespace kdrift {

Json collect_memory(const SysRoot& /*root*/) {
  Json section = Json::object();
  mark_unavailable(section, "*", "collector under construction");
  return section;
}

}  // namespace kdrift
