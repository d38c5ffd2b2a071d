#include "collect/irq.h"

#include "collect/facts.h"

namespace kdrift {

Json collect_irq(const SysRoot& /*root*/) {
  Json section = Json::object();
  mark_unavailable(section, "*", "collector under construction");
  return section;
}

}  // namespace kdrift
