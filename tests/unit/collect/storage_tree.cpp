#include "unit/collect/storage_tree.h"

#include <cstdio>

namespace kdrift::testing {
namespace {

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

void put16(std::string& bytes, size_t at, uint32_t value) {
  bytes[at] = static_cast<char>(value & 0xff);
  bytes[at + 1] = static_cast<char>((value >> 8) & 0xff);
}

void put32(std::string& bytes, size_t at, uint32_t value) {
  put16(bytes, at, value & 0xffff);
  put16(bytes, at + 2, value >> 16);
}

}  // namespace

std::string config_space(const ConfigSpace& config) {
  std::string bytes(256, '\0');
  put16(bytes, 0x00, config.vendor_id);
  put16(bytes, 0x02, config.device_id);
  bytes[0x08] = static_cast<char>(config.revision);
  put16(bytes, 0x09, config.class_code & 0xffff);
  bytes[0x0b] = static_cast<char>(config.class_code >> 16);
  bytes[0x0e] = static_cast<char>(config.header_type);
  if (config.header_type == 0) {
    put16(bytes, 0x2c, config.vendor_id);
    put16(bytes, 0x2e, 0xa801);
  }
  if (!config.pcie) return bytes;
  put16(bytes, 0x06, 0x0010);  // status: capability list present
  bytes[0x34] = static_cast<char>(config.capability_pointer);
  const size_t cap = config.capability_pointer;
  if (cap + 0x14 > bytes.size()) {
    bytes[cap] = 0x10;  // only the header fits
    return bytes;
  }
  bytes[cap] = 0x10;   // PCI Express
  bytes[cap + 1] = 0;  // last capability
  put16(bytes, cap + 0x02, static_cast<uint32_t>(config.port_type << 4) | 2);
  put32(bytes, cap + 0x04, static_cast<uint32_t>(config.payload_supported));
  put16(bytes, cap + 0x08,
        static_cast<uint32_t>(config.payload << 5) |
            static_cast<uint32_t>(config.read_request << 12));
  put32(bytes, cap + 0x0c,
        static_cast<uint32_t>(config.max_speed) | static_cast<uint32_t>(config.max_width << 4));
  put16(bytes, cap + 0x12,
        static_cast<uint32_t>(config.speed) | static_cast<uint32_t>(config.width << 4));
  return bytes;
}

std::string class_text(uint32_t class_code) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%06x", class_code);
  return text;
}

std::string relative_target(std::string_view link, std::string_view target) {
  auto from = components(link);
  from.pop_back();  // the link's own name
  const auto to = components(target);
  size_t common = 0;
  while (common < from.size() && common < to.size() && from[common] == to[common]) {
    ++common;
  }
  std::string relative;
  for (size_t i = common; i < from.size(); ++i) {
    relative += "../";
  }
  for (size_t i = common; i < to.size(); ++i) {
    relative += to[i];
    if (i + 1 < to.size()) relative += '/';
  }
  return relative;
}

void StorageTree::symlink(std::string_view link, std::string_view target) const {
  tree_.symlink(link, relative_target(link, target));
}

std::string StorageTree::pci_function(std::string_view address, std::string_view parent,
                                      const ConfigSpace& config) const {
  const std::string directory =
      (parent.empty() ? std::string("sys/devices/pci0000:00") : std::string(parent)) + "/" +
      std::string(address);
  tree_.write(directory + "/class", class_text(config.class_code) + "\n");
  tree_.write(directory + "/config", config_space(config));
  tree_.write(directory + "/numa_node", "-1\n");
  symlink("sys/bus/pci/devices/" + std::string(address), directory);
  return directory;
}

std::string StorageTree::disk(std::string_view device, std::string_view subdirectory,
                              std::string_view name) const {
  std::string directory = std::string(device) + "/";
  if (!subdirectory.empty()) directory += std::string(subdirectory) + "/";
  directory += std::string(name);
  tree_.write(directory + "/dev", "259:0\n");
  tree_.write(directory + "/size", "2097152\n");
  tree_.write(directory + "/ro", "0\n");
  tree_.write(directory + "/removable", "0\n");
  tree_.write(directory + "/stat", "  100 2 3000 40 50 6 7000 80 0 90 120 0 0 0 0 5 1\n");
  tree_.mkdir(directory + "/holders");
  tree_.mkdir(directory + "/slaves");
  tree_.write(directory + "/queue/scheduler", "[none] mq-deadline kyber\n");
  tree_.write(directory + "/queue/logical_block_size", "512\n");
  tree_.write(directory + "/queue/rotational", "0\n");
  tree_.write(directory + "/queue/io_poll", "0\n");
  tree_.write(directory + "/mq/0/cpu_list", "0, 1\n");
  tree_.write(directory + "/mq/0/nr_tags", "1023\n");
  symlink("sys/block/" + std::string(name), directory);
  return directory;
}

void StorageTree::iommu_group(int number, std::string_view type,
                              const std::vector<std::string>& function_directories) const {
  const std::string group = "sys/kernel/iommu_groups/" + std::to_string(number);
  tree_.write(group + "/type", std::string(type) + "\n");
  tree_.mkdir(group + "/devices");
  for (const auto& function : function_directories) {
    const std::string address = function.substr(function.rfind('/') + 1);
    symlink(group + "/devices/" + address, function);
    symlink(function + "/iommu_group", group);
  }
}

void StorageTree::kernel_log(const std::vector<std::string>& messages) const {
  std::string records;
  int sequence = 0;
  for (const auto& message : messages) {
    records += "6," + std::to_string(sequence) + "," + std::to_string(sequence * 1000) + ",-;" +
               message + "\n SUBSYSTEM=pci\n";
    ++sequence;
  }
  tree_.write("dev/kmsg", records);
}

}  // namespace kdrift::testing
