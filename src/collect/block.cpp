#include "collect/block.h"

#include <algorithm>
#include <cstdint>

#include "collect/facts.h"
#include "util/text.h"

namespace kdrift {
namespace {

// Documentation/block/stat.rst in file order: 11 fields before 4.18, discard added in 4.18 (15),
// flush in 5.5 (17).
constexpr std::string_view kStatFields[] = {
    "read_ios",      "read_merges",   "read_sectors",   "read_ticks",      "write_ios",
    "write_merges",  "write_sectors", "write_ticks",    "in_flight",       "io_ticks",
    "time_in_queue", "discard_ios",   "discard_merges", "discard_sectors", "discard_ticks",
    "flush_ios",     "flush_ticks"};

constexpr std::string_view kMdAttributes[] = {"level", "raid_disks", "chunk_size"};

bool contains(const std::vector<std::string>& sorted, std::string_view name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

void put_names(Json& object, std::string_view key, const SysRoot& root, const std::string& path) {
  if (auto names = root.list(path)) {
    object[std::string(key)] = *names;
  } else {
    mark_unavailable(object, key, names.error());
  }
}

void put_stat(Json& device, const SysRoot& root, const std::string& path) {
  auto text = root.read_value(path);
  if (!text) {
    mark_unavailable(device, "stat", text.error());
    return;
  }
  const auto fields = split_whitespace(*text);
  if (fields.size() != 11 && fields.size() != 15 && fields.size() != 17) {
    mark_unavailable(device, "stat",
                     path + ": expected 11, 15 or 17 fields, found " +
                         std::to_string(fields.size()) + ": " + quote_value(*text));
    return;
  }
  Json stat = Json::object();
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto value = parse_uint(fields[i]);
    if (!value) {
      mark_unavailable(device, "stat",
                       path + ": field " + std::string(kStatFields[i]) +
                           " is not a counter: " + quote_value(*text));
      return;
    }
    stat[std::string(kStatFields[i])] = *value;
  }
  device["stat"] = std::move(stat);
}

// "none [mq-deadline] kyber bfq": the bracketed one is in force.
void put_scheduler(Json& device, const Json& queue, const std::string& path) {
  const auto raw = queue.find("scheduler");
  if (raw == queue.end()) {
    std::string reason = path + " is absent (a bio-based queue has no elevator)";
    if (const auto failed = queue.find("unavailable"); failed != queue.end()) {
      for (const auto* key : {"scheduler", "*"}) {
        if (failed->contains(key)) reason = (*failed)[key].get<std::string>();
      }
    }
    mark_unavailable(device, "scheduler", std::move(reason));
    return;
  }
  const std::string text = raw->is_string() ? raw->get<std::string>() : raw->dump();
  const auto choice = parse_bracketed_choice(text);
  if (!choice) {
    mark_unavailable(
        device, "scheduler",
        path + ": expected schedulers with one in [brackets], found " + quote_value(text));
    return;
  }
  device["scheduler"] = {{"active", choice->active}, {"available", choice->available}};
}

Json collect_queue(const SysRoot& root, const std::string& directory) {
  const std::string path = directory + "/queue";
  Json queue = read_attribute_directory(root, path);
  const std::string iosched = path + "/iosched";
  if (auto kind = root.kind(iosched)) {
    if (*kind == EntryKind::kDirectory) queue["iosched"] = read_attribute_directory(root, iosched);
  } else if (kind.error().code != ENOENT) {
    mark_unavailable(queue, "iosched", kind.error());
  }
  return queue;
}

// Hardware queues in number order, each with the CPUs that submit to it and its tag count.
void put_hardware_queues(Json& device, const SysRoot& root, const std::string& directory) {
  const std::string mq = directory + "/mq";
  auto names = root.list(mq);
  if (!names) {
    mark_unavailable(device, "mq", names.error());
    return;
  }
  std::vector<std::pair<int64_t, Json>> queues;
  for (const auto& name : *names) {
    const auto number = parse_int(name);
    if (!number) continue;  // not a hardware queue directory
    Json queue = {{"queue", *number}};
    put_text(queue, "cpu_list", root, mq + "/" + name + "/cpu_list");
    put_int(queue, "nr_tags", root, mq + "/" + name + "/nr_tags");
    queues.emplace_back(*number, std::move(queue));
  }
  std::sort(queues.begin(), queues.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Json list = Json::array();
  for (auto& [number, queue] : queues) {
    list.push_back(std::move(queue));
  }
  device["mq"] = std::move(list);
}

// Partitions are the subdirectories named after the disk ("vda1", "nvme0n1p1") that carry a
// "partition" file.
void put_partitions(Json& device, const SysRoot& root, const std::string& name,
                    const std::string& directory, const std::vector<std::string>& entries) {
  Json partitions = Json::object();
  for (const auto& entry : entries) {
    if (entry.size() <= name.size() || !starts_with(entry, name)) continue;
    const std::string path = directory + "/" + entry;
    Json partition = Json::object();
    auto number = root.read_value(path + "/partition");
    if (!number) {
      if (number.error().code != ENOENT) mark_unavailable(partitions, entry, number.error());
      continue;
    }
    const auto index = parse_int(*number);
    if (!index) {
      mark_unavailable(partitions, entry,
                       path + "/partition: expected an integer, found " + quote_value(*number));
      continue;
    }
    partition["partition"] = *index;
    put_int(partition, "start", root, path + "/start");
    put_sectors(partition, "size", root, path + "/size");
    put_names(partition, "holders", root, path + "/holders");
    partitions[entry] = std::move(partition);
  }
  device["partitions"] = std::move(partitions);
}

// Whether an absent mq/ or loop/ below /sys/block/X means the device has none: always on the
// live host or a complete dump; in another tree (a sos report) only where some device has one.
struct KeptEntries {
  bool mq = true;
  bool loop = true;
};

constexpr std::string_view kNotKept =
    "absent, and this tree keeps no such entry of any device (not a complete capture)";

KeptEntries kept_entries(const SysRoot& root, const std::vector<std::string>& names) {
  if (root.complete()) return {};
  KeptEntries kept{false, false};
  for (const auto& name : names) {
    const std::string directory = "/sys/block/" + name;
    kept.mq = kept.mq || root.exists(directory + "/mq");
    kept.loop = kept.loop || root.exists(directory + "/loop");
  }
  return kept;
}

// How the device takes I/O: its counters, its queue and scheduler, its hardware queues.
void put_io_path(Json& device, const SysRoot& root, const std::string& directory,
                 const std::vector<std::string>& entries, const KeptEntries& kept) {
  put_stat(device, root, directory + "/stat");
  device["queue"] = collect_queue(root, directory);
  put_scheduler(device, device["queue"], directory + "/queue/scheduler");
  // bio-based drivers (zram, brd, dm's bio mode) have no blk-mq hardware queues: no requests,
  // no merging, no elevator. A directory's missing entry says so only where the tree keeps such
  // entries: a sos report keeps no device's mq/ and no loop/.
  if (contains(entries, "mq")) {
    device["request_based"] = true;
    put_hardware_queues(device, root, directory);
  } else if (kept.mq) {
    device["request_based"] = false;
  } else {
    mark_unavailable(device, "request_based", directory + "/mq: " + std::string(kNotKept));
  }
}

// An empty device (size 0: a loop device with no backing file, a zram device not yet given a
// size, a drive without its medium) holds nothing and takes no I/O, and lsblk leaves it out
// unless asked. Its I/O path (counters, queue, scheduler, hardware queues) is said unread:
// about 70 files a device, and the loop module's eight unbound devices were a third of a live
// capture. Unknown, not "none": a diff against a snapshot that read them shows them as
// unknown here, never as changed.
void mark_empty(Json& device) {
  const std::string reason = "not read: the device is empty (size 0) and takes no I/O";
  for (const auto* key : {"stat", "queue", "scheduler", "request_based", "mq"}) {
    mark_unavailable(device, key, reason);
  }
}

Json collect_device(const SysRoot& root, const std::string& name, const KeptEntries& kept) {
  Json device = Json::object();
  const std::string directory = "/sys/block/" + name;
  if (auto path = root.resolve(directory)) {
    device["path"] = *path;
  } else {
    mark_unavailable(device, "path", path.error());
  }
  auto entries = root.list(directory);
  if (!entries) {
    mark_unavailable(device, "*", entries.error());
    return device;
  }
  put_text(device, "dev", root, directory + "/dev");
  put_sectors(device, "size", root, directory + "/size");
  put_int(device, "ro", root, directory + "/ro");
  put_int(device, "removable", root, directory + "/removable");
  put_names(device, "holders", root, directory + "/holders");
  put_names(device, "slaves", root, directory + "/slaves");
  if (device.contains("size") && device["size"] == 0) {
    mark_empty(device);
  } else {
    put_io_path(device, root, directory, *entries, kept);
  }

  if (contains(*entries, "loop")) {
    device["loop"] = read_attribute_directory(root, directory + "/loop");
    device["loop"]["bound"] = true;
  } else if (starts_with(name, "loop") && kept.loop) {
    device["loop"] = {{"bound", false}};  // no backing file attached
  } else if (starts_with(name, "loop")) {
    device["loop"] = Json::object();
    mark_unavailable(device["loop"], "bound", directory + "/loop: " + std::string(kNotKept));
  }
  if (contains(*entries, "dm")) device["dm"] = read_attribute_directory(root, directory + "/dm");
  if (contains(*entries, "md")) {
    Json md = Json::object();
    for (const auto attribute : kMdAttributes) {
      put_value(md, attribute, root, directory + "/md/" + std::string(attribute));
    }
    device["md"] = std::move(md);
  }
  put_partitions(device, root, name, directory, *entries);
  return device;
}

}  // namespace

Json collect_block(const SysRoot& root) {
  Json section = Json::object();
  auto names = root.list("/sys/block");
  if (!names) {
    mark_unavailable(section, "devices", names.error());
    return section;
  }
  Json devices = Json::object();
  const KeptEntries kept = kept_entries(root, *names);
  for (const auto& name : *names) {
    devices[name] = collect_device(root, name, kept);
  }
  section["devices"] = std::move(devices);
  return section;
}

}  // namespace kdrift
