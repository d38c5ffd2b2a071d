#include "collect/cpu.h"

#include "collect/facts.h"

namespace kdrift {

Json collect_cpu(const SysRoot& /*root*/) {
  Json section = Json::object();
  mark_unavailable(section, "*", "collector under construction");
  return section;
}

}  // namespace kdrift
