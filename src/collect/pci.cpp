#include "collect/pci.h"

#include <unistd.h>

extern "C" {
#include <pci/pci.h>
}

#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include "collect/device_path.h"
#include "collect/facts.h"
#include "collect/pci_ids.h"
#include "util/text.h"

// libpci is used for what it knows (capability lists, the PCI ID database) but reads no file
// itself: every function's config space is read through SysRoot and handed to it as the device's
// cache, and "buscentric" mode keeps it from opening sysfs attributes. So the access log, and a
// dump, hold exactly what the capture used, and a broken fixture cannot make libpci exit.

namespace kdrift {
namespace {

constexpr std::string_view kDevicesDirectory = "/sys/bus/pci/devices";
// The standard header; unprivileged readers of "config" get only this much.
constexpr size_t kHeaderBytes = 64;
// The standard config space holds the capability list with the PCIe capability. Reading the
// extended space (to 4096) would cost a config cycle, or a hypervisor trap, per 4 bytes.
constexpr size_t kStandardConfigBytes = 256;
// libpci's sysfs directory for any root but the live host: below /dev/null, so that nobody can
// create it and a read that strayed past the cached config space fails instead of opening a file
// the root's owner controls (or, for a dump read into memory, one that is not the dump's).
constexpr std::string_view kNoSysfs = "/dev/null/kdrift-no-sysfs";
// Base class 0x01: mass storage controllers (SCSI, IDE, RAID, SATA, NVMe, virtio-blk, ...).
constexpr uint32_t kMassStorageClass = 0x01;

// ---- libpci, fenced -------------------------------------------------------------------------

// libpci reports fatal errors (a corrupt pci.ids, out of memory) through a callback that must
// not return; its default calls exit(). Ours jumps back to the call that was running.
thread_local std::jmp_buf* t_recovery = nullptr;
thread_local char t_error[256];

// The GNU spelling: clang makes it part of the function's type, as libpci's error field wants.
[[gnu::noreturn]] void on_libpci_error(char* format, ...) {
  va_list args;
  va_start(args, format);
  // A message longer than the buffer is cut short, which is all a truncation return would say.
  (void)std::vsnprintf(t_error, sizeof t_error, format, args);
  va_end(args);
  std::longjmp(*t_recovery, 1);
}

void on_libpci_warning(char* /*format*/, ...) {}

// Runs libpci calls; false, with the message in t_error, if libpci gave up. body must own no
// object with a destructor, since a longjmp out of it would skip that destructor. Not inlined,
// so that the caller's variables never share the frame that setjmp saves.
template <class Body>
[[gnu::noinline]] bool run_guarded(Body&& body) {
  std::jmp_buf recovery;
  std::jmp_buf* const outer = t_recovery;
  t_recovery = &recovery;
  if (setjmp(recovery) != 0) {
    t_recovery = outer;
    return false;
  }
  body();
  t_recovery = outer;
  return true;
}

// What kdrift takes from one function's config space, decoded by libpci.
struct ConfigFacts {
  uint16_t vendor_id = 0;
  uint16_t device_id = 0;
  uint8_t revision = 0;
  bool subsystem = false;
  uint16_t subsystem_vendor_id = 0;
  uint16_t subsystem_id = 0;
  bool capabilities = false;  // the capability list could be walked
  bool pcie = false;
  bool pcie_registers = false;  // the PCIe capability lies wholly inside what was read
  uint16_t pcie_flags = 0;
  uint32_t device_capabilities = 0;
  uint16_t device_control = 0;
  uint32_t link_capabilities = 0;
  uint16_t link_status = 0;
  // Names from the PCI ID database; empty when it does not know the id.
  std::string vendor_name;
  std::string device_name;
  std::string class_name;
};

struct Location {
  unsigned domain = 0;
  unsigned bus = 0;
  unsigned device = 0;
  unsigned function = 0;
};

Location parse_location(const std::string& address) {  // address passed is_pci_address()
  Location location;
  (void)std::sscanf(address.c_str(), "%x:%x:%x.%x", &location.domain, &location.bus,
                    &location.device, &location.function);
  return location;
}

class LibPci {
 public:
  explicit LibPci(const std::string& sysfs_path) {
    std::string path = sysfs_path;
    const bool ok = run_guarded([&] {
      access_ = pci_alloc();
      access_->error = on_libpci_error;
      access_->warning = on_libpci_warning;
      access_->method = PCI_ACCESS_SYS_BUS_PCI;
      access_->buscentric = 1;
      // No ~/.pciids-cache: names come from pci.ids alone.
      access_->id_lookup_mode = 0;
      // Only reached if a read strays past the cached config space, which decode() prevents.
      pci_set_param(access_, const_cast<char*>("sysfs.path"), path.data());
      pci_init(access_);
    });
    if (!ok) failure_ = std::string("libpci: ") + t_error;
  }
  LibPci(const LibPci&) = delete;
  LibPci& operator=(const LibPci&) = delete;
  ~LibPci() {
    if (access_ != nullptr) pci_cleanup(access_);
  }

  const std::string& failure() const { return failure_; }

  // Decodes a function's config space; names are looked up in the PCI ID database when it
  // loads. An error names what libpci said.
  Result<ConfigFacts> decode(const std::string& address, std::string& config, uint32_t class_code) {
    ConfigFacts facts;
    const Location at = parse_location(address);
    std::unique_ptr<pci_dev, decltype(&pci_free_dev)> owner(nullptr, &pci_free_dev);
    pci_dev* dev = nullptr;
    const bool full = config.size() >= kStandardConfigBytes;
    const bool ok = run_guarded([&] {
      dev = pci_get_dev(access_, static_cast<int>(at.domain), static_cast<int>(at.bus),
                        static_cast<int>(at.device), static_cast<int>(at.function));
      pci_setup_cache(dev, reinterpret_cast<u8*>(config.data()), static_cast<int>(config.size()));
      pci_fill_info(dev, PCI_FILL_IDENT | PCI_FILL_CLASS_EXT | (full ? PCI_FILL_SUBSYS : 0));
      facts.vendor_id = dev->vendor_id;
      facts.device_id = dev->device_id;
      facts.revision = dev->rev_id;
      if (full) read_capabilities(dev, config.size(), facts);
    });
    owner.reset(dev);
    if (!ok) return content_error(address + ": libpci: " + t_error);
    if (names_loaded()) {
      facts.vendor_name = names_->vendor(facts.vendor_id);
      facts.device_name = names_->device(facts.vendor_id, facts.device_id);
      facts.class_name = names_->class_name(static_cast<uint16_t>(class_code >> 8));
    }
    return facts;
  }

  // The PCI ID database, loaded once; "" or why the names are missing.
  const std::string& names_failure() {
    names_loaded();
    return names_failure_;
  }

 private:
  bool names_loaded() {
    if (!names_tried_) {
      names_tried_ = true;
      const std::string file = pci_ids_file();
      auto database = PciIdDatabase::open(file);
      if (database) {
        names_.emplace(std::move(*database));
      } else {
        names_failure_ = "cannot load the PCI ID database " + database.error().describe();
      }
    }
    return names_.has_value();
  }

  static void read_capabilities(pci_dev* dev, size_t size, ConfigFacts& facts) {
    facts.capabilities = true;
    if ((dev->known_fields & PCI_FILL_SUBSYS) != 0) {
      facts.subsystem = true;
      facts.subsystem_vendor_id = dev->subsys_vendor_id;
      facts.subsystem_id = dev->subsys_id;
    }
    const pci_cap* cap = pci_find_cap(dev, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
    if (cap == nullptr) return;
    facts.pcie = true;
    // A capability near the end of the 256 bytes could run past them; libpci would then read
    // the file itself.
    if (cap->addr + PCI_EXP_LNKSTA + 2 > size) return;
    facts.pcie_registers = true;
    facts.pcie_flags = pci_read_word(dev, static_cast<int>(cap->addr + PCI_EXP_FLAGS));
    facts.device_capabilities = pci_read_long(dev, static_cast<int>(cap->addr + PCI_EXP_DEVCAP));
    facts.device_control = pci_read_word(dev, static_cast<int>(cap->addr + PCI_EXP_DEVCTL));
    facts.link_capabilities = pci_read_long(dev, static_cast<int>(cap->addr + PCI_EXP_LNKCAP));
    facts.link_status = pci_read_word(dev, static_cast<int>(cap->addr + PCI_EXP_LNKSTA));
  }

  pci_access* access_ = nullptr;
  std::string failure_;
  bool names_tried_ = false;
  std::optional<PciIdDatabase> names_;
  std::string names_failure_;
};

// ---- decoding -------------------------------------------------------------------------------

std::string hex(uint32_t value, int digits) {
  char text[16];
  (void)std::snprintf(text, sizeof text, "%0*x", digits, value);  // at most 8 digits fit
  return text;
}

std::string port_type(uint16_t pcie_flags) {
  switch ((pcie_flags & PCI_EXP_FLAGS_TYPE) >> 4) {
    case PCI_EXP_TYPE_ENDPOINT:
      return "endpoint";
    case PCI_EXP_TYPE_LEG_END:
      return "legacy_endpoint";
    case PCI_EXP_TYPE_ROOT_PORT:
      return "root_port";
    case PCI_EXP_TYPE_UPSTREAM:
      return "upstream_port";
    case PCI_EXP_TYPE_DOWNSTREAM:
      return "downstream_port";
    case PCI_EXP_TYPE_PCI_BRIDGE:
      return "pcie_to_pci_bridge";
    case PCI_EXP_TYPE_PCIE_BRIDGE:
      return "pci_to_pcie_bridge";
    case PCI_EXP_TYPE_ROOT_INT_EP:
      return "root_complex_integrated_endpoint";
    case PCI_EXP_TYPE_ROOT_EC:
      return "root_complex_event_collector";
    default:
      return "type " + std::to_string((pcie_flags & PCI_EXP_FLAGS_TYPE) >> 4);
  }
}

// Root complex integrated endpoints and event collectors have no link.
bool has_link_type(uint16_t pcie_flags) {
  const int type = (pcie_flags & PCI_EXP_FLAGS_TYPE) >> 4;
  return type != PCI_EXP_TYPE_ROOT_INT_EP && type != PCI_EXP_TYPE_ROOT_EC;
}

// Link speed codes of the Link Capabilities/Status registers, in GT/s.
std::optional<double> speed_gts(uint32_t code) {
  constexpr double kSpeeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (code < 1 || code > std::size(kSpeeds)) return std::nullopt;
  return kSpeeds[code - 1];
}

// The kernel's view of the link (sysfs) beside the registers libpci decoded; whether the two
// agree, and whether the link is degraded, is kernel_facts/pci_link.h's to judge.
void put_link(Json& device, const SysRoot& root, const std::string& directory,
              const ConfigFacts* facts) {
  Json link = Json::object();
  for (const char* key : {"current_link_speed", "max_link_speed"})
    put_text(link, key, root, directory + "/" + key);
  for (const char* key : {"current_link_width", "max_link_width"})
    put_int(link, key, root, directory + "/" + key);
  if (facts != nullptr && facts->pcie_registers) {
    Json config = Json::object();
    const auto current_speed = speed_gts(facts->link_status & PCI_EXP_LNKSTA_SPEED);
    const auto max_speed = speed_gts(facts->link_capabilities & PCI_EXP_LNKCAP_SPEED);
    if (current_speed) config["current_speed_gts"] = *current_speed;
    if (max_speed) config["max_speed_gts"] = *max_speed;
    config["current_width"] = (facts->link_status & PCI_EXP_LNKSTA_WIDTH) >> 4;
    config["max_width"] = (facts->link_capabilities & PCI_EXP_LNKCAP_WIDTH) >> 4;
    link["config"] = std::move(config);
  }
  device["link"] = std::move(link);
}

// "RxErr 0\nBadTLP 0\n...\nTOTAL_ERR_COR 0": error name and count per line.
void put_aer(Json& aer, std::string_view key, const SysRoot& root, const std::string& path) {
  auto text = root.read(path);
  if (!text) {
    mark_unavailable(aer, key, text.error());
    return;
  }
  Json counters = Json::object();
  for (const auto& line : split_lines(*text)) {
    const auto fields = split_whitespace(line);
    const auto count = fields.size() == 2 ? parse_uint(fields[1]) : std::nullopt;
    if (!count) {
      mark_unavailable(aer, key,
                       path + ": expected \"name count\" lines, found " + quote_value(line));
      return;
    }
    counters[fields[0]] = *count;
  }
  aer[std::string(key)] = std::move(counters);
}

void put_config_facts(Json& device, const ConfigFacts& facts) {
  device["vendor_id"] = hex(facts.vendor_id, 4);
  device["device_id"] = hex(facts.device_id, 4);
  device["revision"] = hex(facts.revision, 2);
  if (facts.subsystem) {
    device["subsystem_vendor_id"] = hex(facts.subsystem_vendor_id, 4);
    device["subsystem_device_id"] = hex(facts.subsystem_id, 4);
  }
  if (!facts.capabilities) return;  // whether it is PCIe is not known
  if (!facts.pcie) {
    device["pcie"] = false;
    return;
  }
  device["pcie"] = true;
  if (!facts.pcie_registers) {
    mark_unavailable(device, "pcie_type", "the PCIe capability runs past the config space read");
    return;
  }
  device["pcie_type"] = port_type(facts.pcie_flags);
  device["max_payload_supported_bytes"] = 128
                                          << (facts.device_capabilities & PCI_EXP_DEVCAP_PAYLOAD);
  device["max_payload_bytes"] = 128 << ((facts.device_control & PCI_EXP_DEVCTL_PAYLOAD) >> 5);
  device["max_read_request_bytes"] = 128 << ((facts.device_control & PCI_EXP_DEVCTL_READRQ) >> 12);
}

void put_names(Json& device, LibPci& library, const ConfigFacts& facts) {
  if (!library.names_failure().empty()) {
    mark_unavailable(device, "names", library.names_failure());
    return;
  }
  for (const auto& [key, name] : {std::pair{"vendor_name", facts.vendor_name},
                                  {"device_name", facts.device_name},
                                  {"class_name", facts.class_name}}) {
    if (!name.empty()) {
      device[key] = name;
    } else {
      mark_unavailable(device, key, "not in the PCI ID database");
    }
  }
}

// Where the kernel links a function to something else (driver, iommu_group): the target's last
// component, absent when there is no link.
void put_link_name(Json& device, std::string_view key, const SysRoot& root, const std::string& path,
                   bool as_int) {
  auto target = root.link_target(path);
  if (!target) {
    if (target.error().code != ENOENT) mark_unavailable(device, key, target.error());
    return;
  }
  const std::string name = target->substr(target->rfind('/') + 1);
  const auto number = as_int ? parse_int(name) : std::nullopt;
  if (as_int && !number) {
    mark_unavailable(device, key, path + " points to " + quote_value(*target));
    return;
  }
  device[std::string(key)] = as_int ? Json(*number) : Json(name);
}

struct Kept {
  std::string role;                   // "storage" or "bridge"
  std::vector<std::string> upstream;  // storage only: bridges from the root complex down
  std::optional<Error> unresolved;    // why upstream could not be found
};

// The function's config space decoded by libpci: names, capabilities and registers, or why not.
std::optional<ConfigFacts> read_config(Json& device, const SysRoot& root, LibPci& library,
                                       const std::string& address, const std::string& directory,
                                       uint32_t class_code) {
  auto config = root.read_head(directory + "/config", kStandardConfigBytes);
  if (!config) {
    mark_unavailable(device, "config", config.error());
    return std::nullopt;
  }
  if (config->size() < kHeaderBytes) {
    mark_unavailable(device, "config",
                     directory + "/config: " + std::to_string(config->size()) +
                         " bytes, shorter than the 64-byte header");
    return std::nullopt;
  }
  if (!library.failure().empty()) {
    mark_unavailable(device, "config", library.failure());
    return std::nullopt;
  }
  auto decoded = library.decode(address, *config, class_code);
  if (!decoded) {
    mark_unavailable(device, "config", decoded.error());
    return std::nullopt;
  }
  put_config_facts(device, *decoded);
  put_names(device, library, *decoded);
  if (!decoded->capabilities) {
    mark_unavailable(device, "pcie",
                     directory + "/config: only " + std::to_string(config->size()) +
                         " bytes readable, the capabilities need 256 (root can read them)");
  }
  return *decoded;
}

// The link (when the function has one) and the AER counters, from the function's directory.
void put_link_and_aer(Json& device, const SysRoot& root, const std::string& directory,
                      const std::vector<std::string>& entries,
                      const std::optional<ConfigFacts>& facts) {
  const auto present = [&](std::string_view name) {
    return std::binary_search(entries.begin(), entries.end(), name);
  };
  // The kernel adds the link attributes to PCIe functions only; the registers say more exactly
  // which have a link, when they could be read.
  const bool registers = facts && facts->pcie_registers;
  const bool has_link = facts && facts->capabilities
                            ? facts->pcie && (!registers || has_link_type(facts->pcie_flags))
                            : present("current_link_speed");
  if (has_link) put_link(device, root, directory, facts ? &*facts : nullptr);
  Json aer = Json::object();
  for (const auto& [key, file] : {std::pair{"correctable", "aer_dev_correctable"},
                                  {"fatal", "aer_dev_fatal"},
                                  {"nonfatal", "aer_dev_nonfatal"}}) {
    if (present(file)) put_aer(aer, key, root, directory + "/" + file);
  }
  if (!aer.empty()) device["aer"] = std::move(aer);
}

Json describe(const SysRoot& root, LibPci& library, const std::string& address, const Kept& kept,
              const std::map<std::string, uint32_t>& classes) {
  const std::string directory = std::string(kDevicesDirectory) + "/" + address;
  Json device = Json::object();
  device["role"] = kept.role;
  if (kept.unresolved) {
    mark_unavailable(device, "upstream", *kept.unresolved);
  } else if (kept.role == "storage") {
    device["upstream"] = kept.upstream;
  }
  const auto class_code = classes.find(address);
  if (class_code != classes.end()) device["class"] = hex(class_code->second, 6);
  const auto facts = read_config(device, root, library, address, directory,
                                 class_code != classes.end() ? class_code->second : 0);

  auto entries = root.list(directory);
  if (!entries) {
    mark_unavailable(device, "*", entries.error());
    return device;
  }
  put_link_name(device, "driver", root, directory + "/driver", /*as_int=*/false);
  put_link_name(device, "iommu_group", root, directory + "/iommu_group", /*as_int=*/true);
  put_int(device, "numa_node", root, directory + "/numa_node");
  put_link_and_aer(device, root, directory, *entries, facts);
  return device;
}

// The kernel's class of every function (a cached value, unlike config space), by address.
std::map<std::string, uint32_t> read_classes(Json& section, const SysRoot& root,
                                             const std::vector<std::string>& names) {
  std::map<std::string, uint32_t> classes;
  for (const auto& name : names) {
    const std::string path = std::string(kDevicesDirectory) + "/" + name;
    if (!is_pci_address(name)) {
      mark_unavailable(section, path, "not a PCI function address");
      continue;
    }
    auto text = root.read_value(path + "/class");
    const auto code = text ? parse_uint(*text) : std::nullopt;
    if (!text) {
      mark_unavailable(section, path + "/class", text.error());
    } else if (!code || *code > 0xffffff) {
      mark_unavailable(section, path + "/class",
                       "expected a class code, found " + quote_value(*text));
    } else {
      classes[name] = static_cast<uint32_t>(*code);
    }
  }
  return classes;
}

// The storage controllers, and every bridge on their paths from the root complex.
std::map<std::string, Kept> storage_and_bridges(const SysRoot& root,
                                                const std::map<std::string, uint32_t>& classes) {
  std::map<std::string, Kept> kept;
  for (const auto& [address, class_code] : classes) {
    if ((class_code >> 16) != kMassStorageClass) continue;
    kept[address].role = "storage";
    auto resolved = root.resolve(std::string(kDevicesDirectory) + "/" + address);
    if (!resolved) {
      kept[address].unresolved = resolved.error();
      continue;
    }
    for (const auto& function : pci_functions_on_path(*resolved)) {
      if (function.address == address) break;
      kept[address].upstream.push_back(function.address);
      Kept& bridge = kept[function.address];
      if (bridge.role.empty()) bridge.role = "bridge";
    }
  }
  return kept;
}

}  // namespace

Json collect_pci(const SysRoot& root) {
  Json section = Json::object();
  auto names = root.list(kDevicesDirectory);
  if (!names) {
    mark_unavailable(section, "devices", names.error());
    return section;
  }
  const auto classes = read_classes(section, root, *names);
  const auto kept = storage_and_bridges(root, classes);
  if (kept.empty()) {
    section["devices"] = Json::object();
    return section;
  }
  LibPci library(root.live() ? std::string("/sys/bus/pci") : std::string(kNoSysfs));
  Json devices = Json::object();
  for (const auto& [address, entry] : kept)
    devices[address] = describe(root, library, address, entry, classes);
  section["devices"] = std::move(devices);
  return section;
}

std::string pci_ids_file() {
  pci_access* access = pci_alloc();
  std::string path = access->id_file_name != nullptr ? access->id_file_name : "";
  pci_cleanup(access);
  // A libpci built with zlib names pci.ids.gz and falls back to the plain file, as Debian's
  // pci.ids package ships it.
  std::string plain = path.ends_with(".gz") ? path.substr(0, path.size() - 3) : path;
  if (::access(path.c_str(), R_OK) != 0 && ::access(plain.c_str(), R_OK) == 0) return plain;
  return path;
}

}  // namespace kdrift
