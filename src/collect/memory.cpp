#include "collect/memory.h"

#include "collect/facts.h"
#include "collect/meminfo.h"
#include "collect/sysctl.h"
#include "util/text.h"

namespace kdrift {
namespace {

// "always [madvise] never": the bracketed mode is in force.
void put_thp_mode(Json& thp, const SysRoot& root, const std::string& name) {
  const std::string path = "/sys/kernel/mm/transparent_hugepage/" + name;
  auto raw = root.read_value(path);
  if (!raw) {
    mark_unavailable(thp, name, raw.error());
    return;
  }
  const auto choice = parse_bracketed_choice(*raw);
  if (!choice) {
    mark_unavailable(
        thp, name, path + ": expected choices with one in [brackets], found " + quote_value(*raw));
    return;
  }
  thp[name] = {{"active", choice->active}, {"available", choice->available}, {"raw", *raw}};
}

}  // namespace

Json collect_memory(const SysRoot& root) {
  Json memory = Json::object();
  Json thp = Json::object();
  put_thp_mode(thp, root, "enabled");
  put_thp_mode(thp, root, "defrag");
  memory["transparent_hugepage"] = std::move(thp);

  constexpr std::string_view kMeminfoPath = "/proc/meminfo";
  if (auto text = root.read(kMeminfoPath)) {
    const auto fields = parse_meminfo(*text);
    Json meminfo = Json::object();
    struct Field {
      std::string_view key;
      std::string_view name;  // as /proc/meminfo spells it
    };
    constexpr Field kFields[] = {
        {"mem_total_bytes", "MemTotal"},
        {"mem_available_bytes", "MemAvailable"},
        {"hugepages_total", "HugePages_Total"},
        {"hugepage_size_bytes", "Hugepagesize"},
        {"dirty_bytes", "Dirty"},
        {"writeback_bytes", "Writeback"},
    };
    for (const auto& field : kFields) {
      put_meminfo_field(meminfo, field.key, fields, field.name, kMeminfoPath);
    }
    memory["meminfo"] = std::move(meminfo);
  } else {
    mark_unavailable(memory, "meminfo", text.error());
  }
  put_int(memory, "vm.nr_hugepages", root, sysctl_path("vm.nr_hugepages"));
  return memory;
}

}  // namespace kdrift
