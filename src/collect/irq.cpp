#include "collect/irq.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>

#include "collect/facts.h"
#include "collect/ids.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kInterruptsPath = "/proc/interrupts";
// A column per cpu and a row per vector: a 256-cpu host with many NVMe queues and NICs writes
// well over the reader's default limit.
constexpr size_t kMaxInterruptsBytes = size_t{64} << 20;

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// Space-separated fields as views into the line: only the few storage rows of a file that can
// hold a million counts are worth allocating for.
class Fields {
 public:
  explicit Fields(std::string_view text) : rest_(text) {}
  std::string_view next() {
    const auto start = rest_.find_first_not_of(" \t");
    if (start == std::string_view::npos) {
      rest_ = {};
      return {};
    }
    rest_.remove_prefix(start);
    const auto field = rest_.substr(0, rest_.find_first_of(" \t"));
    rest_.remove_prefix(field.size());
    return field;
  }
  std::string_view peek() const { return Fields(*this).next(); }
  std::string_view rest() const { return trim(rest_); }

 private:
  std::string_view rest_;
};

// "1-edge", "524288-edge", "-fasteoi" (hwirq and flow handler), "27" and "Level" (arm64):
// what /proc/interrupts prints between the chip and the handler names.
bool is_type_field(std::string_view field) {
  if (all_digits(field) || field == "Edge" || field == "Level") return true;
  const auto dash = field.find('-');
  if (dash == std::string_view::npos || dash + 1 == field.size()) return false;
  const auto hwirq = field.substr(0, dash);
  const auto flow = field.substr(dash + 1);
  return (hwirq.empty() || all_digits(hwirq)) &&
         flow.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string_view::npos;
}

struct Row {
  int irq = 0;
  std::vector<std::string_view> counts;
  std::string_view chip;
  std::string_view type;
  std::string_view name;
};

// Rows of numbered interrupts only: NMI, LOC, ERR and the like are per-cpu events, not lines.
std::optional<Row> parse_row(std::string_view line, size_t columns) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto id = trim(line.substr(0, colon));
  const auto irq = all_digits(id) ? parse_int(id) : std::nullopt;
  if (!irq || *irq > std::numeric_limits<int>::max()) return std::nullopt;
  Row row;
  row.irq = static_cast<int>(*irq);
  Fields fields(line.substr(colon + 1));
  while (row.counts.size() < columns && all_digits(fields.peek())) {
    row.counts.push_back(fields.next());
  }
  row.chip = fields.next();
  const auto* type_begin = static_cast<const char*>(nullptr);
  for (int taken = 0; taken < 3 && is_type_field(fields.peek()); ++taken) {
    const auto field = fields.next();
    if (type_begin == nullptr) type_begin = field.data();
    row.type = std::string_view(type_begin, field.data() + field.size() - type_begin);
  }
  row.name = fields.rest();
  return row;
}

Result<std::vector<int>> parse_header(std::string_view line) {
  std::vector<int> cpus;
  for (const auto& field : split_whitespace(line)) {
    const auto id = starts_with(field, "CPU") && all_digits(field.substr(3))
                        ? parse_int(field.substr(3))
                        : std::nullopt;
    if (!id || *id > kMaxCpuId) break;
    cpus.push_back(static_cast<int>(*id));
  }
  if (cpus.empty()) {
    return content_error(std::string(kInterruptsPath) +
                         ": expected a header of CPU columns, found " + quote_value(line));
  }
  return cpus;
}

// Interrupt names of storage drivers; virtio queues are told apart by name below.
constexpr std::string_view kStorageWords[] = {"nvme", "ahci", "megasas", "mpt3sas", "scsi"};

// virtio-blk names its queues "virtioN-req.Q" ("virtioN-requests" before 4.x), virtio-scsi
// "virtioN-request.Q"; virtio-net and the balloon use other names.
bool is_virtio_request_queue(std::string_view name) {
  if (!starts_with(name, "virtio")) return false;
  const auto dash = name.find('-');
  return dash != std::string_view::npos && all_digits(name.substr(6, dash - 6)) &&
         starts_with(name.substr(dash + 1), "req");
}

// Device name (the target of /sys/block/<dev>/device: "virtio1", "nvme0") -> its block devices,
// so that a controller's config and admin vectors are found as well as its queues.
std::map<std::string, std::vector<std::string>> block_device_parents(const SysRoot& root) {
  std::map<std::string, std::vector<std::string>> parents;
  auto devices = root.list("/sys/block");
  if (!devices) return parents;
  for (const auto& device : *devices) {
    auto target = root.link_target("/sys/block/" + device + "/device");
    if (!target) continue;  // loop, zram, dm: no device, no interrupt of their own
    const auto slash = target->rfind('/');
    const std::string parent = target->substr(slash == std::string::npos ? 0 : slash + 1);
    if (!parent.empty()) parents[parent].push_back(device);
  }
  return parents;
}

struct StorageMatch {
  std::string reason;
  std::vector<std::string> block_devices;  // known only when matched through the device name
};

// Why the row counts as a storage queue, or nullopt.
std::optional<StorageMatch> storage_match(
    std::string_view name, const std::map<std::string, std::vector<std::string>>& parents) {
  for (const auto& [parent, devices] : parents) {
    // "virtio1-req.0" and "nvme0q3" belong to virtio1 and nvme0; "virtio10-..." does not.
    if (!starts_with(name, parent) ||
        (name.size() > parent.size() &&
         std::isdigit(static_cast<unsigned char>(name[parent.size()])))) {
      continue;
    }
    std::string reason = parent + " of block device";
    for (const auto& device : devices) {
      reason += " " + device;
    }
    return StorageMatch{reason, devices};
  }
  if (is_virtio_request_queue(name)) return StorageMatch{"virtio request queue", {}};
  for (const auto word : kStorageWords) {
    if (name.find(word) != std::string_view::npos) return StorageMatch{std::string(word), {}};
  }
  return std::nullopt;
}

void put_affinity(Json& entry, const SysRoot& root, const std::string& dir) {
  // effective_affinity_list is where the interrupt is delivered (managed NVMe vectors: one cpu);
  // smp_affinity_list, what was asked for, is all older kernels have.
  std::string reasons;
  for (const std::string file : {"effective_affinity_list", "smp_affinity_list"}) {
    auto cpus = read_id_list(root, dir + "/" + file);
    if (cpus) {
      entry["affinity"] = std::move(cpus->ids);
      entry["affinity_source"] = file;
      return;
    }
    reasons += (reasons.empty() ? "" : "; ") + cpus.error().describe();
  }
  mark_unavailable(entry, "affinity", reasons);
}

// Per-cpu counts in header order, and their total when the row has every column.
void put_counts(Json& entry, const Row& row, size_t columns) {
  std::vector<uint64_t> counts;
  uint64_t total = 0;
  for (const auto field : row.counts) {
    const auto count = parse_uint(field);
    if (!count) {  // all digits, so too many of them
      mark_unavailable(
          entry, "counts",
          std::string(kInterruptsPath) + ": " + quote_value(field) + " is not a count");
      return;
    }
    counts.push_back(*count);
    total += *count;
  }
  entry["counts"] = std::move(counts);
  if (row.counts.size() == columns) {
    entry["total"] = total;
  } else {
    mark_unavailable(entry, "total",
                     std::string(kInterruptsPath) + ": row has " +
                         std::to_string(row.counts.size()) + " of " + std::to_string(columns) +
                         " cpu columns");
  }
}

Json storage_entry(const Row& row, StorageMatch match, size_t columns, const SysRoot& root) {
  Json entry = {{"irq", row.irq},
                {"chip", std::string(row.chip)},
                {"type", std::string(row.type)},
                {"name", std::string(row.name)},
                {"matched_by", std::move(match.reason)},
                {"block_devices", std::move(match.block_devices)}};
  put_counts(entry, row, columns);
  const std::string dir = "/proc/irq/" + std::to_string(row.irq);
  put_affinity(entry, root, dir);
  put_int(entry, "node", root, dir + "/node");
  return entry;
}

}  // namespace

Json collect_irq(const SysRoot& root) {
  Json irq = Json::object();
  auto text = root.read(kInterruptsPath, kMaxInterruptsBytes);
  if (!text) {
    mark_unavailable(irq, "columns", text.error());
    mark_unavailable(irq, "storage", text.error());
    return irq;
  }
  const std::string_view content = *text;
  const auto header_end = content.find('\n');
  auto cpus = parse_header(content.substr(0, header_end));
  if (!cpus) {
    mark_unavailable(irq, "columns", cpus.error());
    mark_unavailable(irq, "storage", cpus.error());
    return irq;
  }
  const size_t columns = cpus->size();
  irq["columns"] = {{"count", columns}, {"cpus", std::move(*cpus)}};

  const auto parents = block_device_parents(root);
  std::vector<std::pair<int, Json>> storage;
  size_t start = header_end == std::string_view::npos ? content.size() : header_end + 1;
  while (start < content.size()) {
    const auto end = std::min(content.find('\n', start), content.size());
    const auto row = parse_row(content.substr(start, end - start), columns);
    start = end + 1;
    if (!row) continue;
    if (auto match = storage_match(row->name, parents)) {
      storage.emplace_back(row->irq, storage_entry(*row, std::move(*match), columns, root));
    }
  }
  std::sort(storage.begin(), storage.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Json rows = Json::array();
  for (auto& [number, entry] : storage)
    rows.push_back(std::move(entry));
  irq["storage"] = std::move(rows);
  return irq;
}

}  // namespace kdrift
