#include "collect/numa.h"

#include "collect/cpumask.h"
#include "collect/facts.h"
#include "collect/ids.h"
#include "collect/meminfo.h"
#include "collect/sysctl.h"
#include "util/text.h"

namespace kdrift {
namespace {

const std::string kNodeDir = "/sys/devices/system/node";

// One row of the SLIT: the relative cost of reaching every online node from this one (10 = local).
void put_distances(Json& node, const SysRoot& root, const std::string& path) {
  auto text = root.read_value(path);
  if (!text) {
    mark_unavailable(node, "distance", text.error());
    return;
  }
  std::vector<int64_t> row;
  for (const auto& word : split_whitespace(*text)) {
    const auto distance = parse_int(word);
    if (!distance || *distance < 0) {
      mark_unavailable(
          node, "distance",
          path + ": expected distances separated by spaces, found " + quote_value(*text));
      return;
    }
    row.push_back(*distance);
  }
  if (row.empty()) {
    mark_unavailable(node, "distance", path + ": empty");
    return;
  }
  node["distance"] = std::move(row);
}

// cpulist, or the cpumap mask where the node has no cpulist (kernels before 2.6.29 and the
// dumps of util-linux's lscpu tests, among others). "cpulist" is then written from the mask.
void put_node_cpus(Json& node, const SysRoot& root, const std::string& dir) {
  auto cpulist = read_id_list(root, dir + "/cpulist");
  if (cpulist) {
    node["cpulist"] = cpulist->text;
    node["cpus"] = std::move(cpulist->ids);
    return;
  }
  if (cpulist.error().code != ENOENT) {
    mark_unavailable(node, "cpus", cpulist.error());
    return;
  }
  const std::string cpumap_path = dir + "/cpumap";
  auto cpumap = root.read_value(cpumap_path);
  auto ids =
      cpumap ? parse_cpu_mask(*cpumap, cpumap_path) : Result<std::vector<int>>(cpumap.error());
  if (!ids) {
    mark_unavailable(node, "cpus", cpulist.error().describe() + "; " + ids.error().describe());
    return;
  }
  node["cpulist"] = format_id_list(*ids);
  node["cpumap"] = *cpumap;
  node["cpus"] = std::move(*ids);
}

Json read_node(const SysRoot& root, int id) {
  const std::string dir = kNodeDir + "/node" + std::to_string(id);
  Json node = {{"node", id}};
  put_node_cpus(node, root, dir);
  put_distances(node, root, dir + "/distance");
  const std::string meminfo_path = dir + "/meminfo";
  if (auto text = root.read(meminfo_path)) {
    const auto fields = parse_meminfo(*text);
    Json meminfo = Json::object();
    put_meminfo_field(meminfo, "mem_total_bytes", fields, "MemTotal", meminfo_path);
    put_meminfo_field(meminfo, "mem_free_bytes", fields, "MemFree", meminfo_path);
    node["meminfo"] = std::move(meminfo);
  } else {
    mark_unavailable(node, "meminfo", text.error());
  }
  return node;
}

}  // namespace

Json collect_numa(const SysRoot& root) {
  Json numa = Json::object();
  put_id_list(numa, "online", root, kNodeDir + "/online");
  put_id_list(numa, "possible", root, kNodeDir + "/possible");
  if (auto names = root.list(kNodeDir); !names) {
    mark_unavailable(numa, "nodes", names.error());
  } else if (const auto ids = numbered_entries(*names, "node"); ids.empty()) {
    mark_unavailable(numa, "nodes", kNodeDir + " has no node directory");
  } else {
    Json nodes = Json::array();
    for (const int id : ids)
      nodes.push_back(read_node(root, id));
    numa["nodes"] = std::move(nodes);
  }
  put_int(numa, "kernel.numa_balancing", root, sysctl_path("kernel.numa_balancing"));
  return numa;
}

}  // namespace kdrift
