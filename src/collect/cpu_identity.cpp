#include "collect/cpu_identity.h"

#include <span>

#include "collect/arm_cpu_table.h"
#include "collect/cpuinfo.h"
#include "collect/facts.h"
#include "util/text.h"

namespace kdrift {
namespace {

struct Key {
  std::string_view json;
  std::string_view cpuinfo;  // as /proc/cpuinfo spells it
  bool integer = false;
};

constexpr Key kArmKeys[] = {{"implementer", "CPU implementer"},
                            {"part", "CPU part"},
                            {"variant", "CPU variant"},
                            {"revision", "CPU revision"},
                            {"architecture", "CPU architecture"}};
// "platform" (pSeries, PowerNV, PowerMac…), "model" and "machine" follow the last processor.
constexpr Key kPowerKeys[] = {{"cpu", "cpu"},
                              {"revision", "revision"},
                              {"platform", "platform"},
                              {"model", "model"},
                              {"machine", "machine"}};
constexpr Key kRiscvKeys[] = {{"isa", "isa"},         {"mmu", "mmu"},
                              {"uarch", "uarch"},     {"mvendorid", "mvendorid"},
                              {"marchid", "marchid"}, {"mimpid", "mimpid"}};
constexpr Key kLoongarchKeys[] = {{"cpu_family", "CPU Family"},
                                  {"model_name", "Model Name"},
                                  {"cpu_revision", "CPU Revision"},
                                  {"isa", "ISA"}};
constexpr Key kS390Keys[] = {{"vendor_id", "vendor_id"}, {"processors", "# processors", true}};
constexpr Key kSparcKeys[] = {
    {"cpu", "cpu"}, {"type", "type"}, {"ncpus_probed", "ncpus probed", true}};
constexpr Key kMipsKeys[] = {{"system_type", "system type"}, {"cpu_model", "cpu model"}};

// How one family of architectures describes its processor: its own keys, kept under `section`,
// and which of them are the vendor and the model name (empty: the family prints none).
struct Family {
  std::string_view prefix;  // of the architecture names cpuinfo_architecture gives it
  std::string_view section;
  std::span<const Key> keys;
  std::string_view vendor;
  std::string_view model_name;
  std::string_view model_note;  // why there is no model name, where the family has none
};

// Arm prints ids only: its vendor and model names come from arm_cpu_table. x86 is the last
// entry and stands for an architecture no key names, since its keys are the common ones.
const Family kFamilies[] = {
    {"arm", "arm", kArmKeys, "", "", ""},
    {"powerpc", "powerpc", kPowerKeys, "", "cpu", ""},
    {"riscv", "riscv", kRiscvKeys, "mvendorid", "uarch",
     "the kernel prints \"uarch\" only when the device tree's cpu node names a compatible core"},
    {"loongarch", "loongarch", kLoongarchKeys, "", "Model Name", ""},
    {"s390", "s390", kS390Keys, "vendor_id", "", "the machine type is s390.machine_type"},
    {"sparc", "sparc", kSparcKeys, "", "cpu", ""},
    {"mips", "mips", kMipsKeys, "", "cpu model", ""},
    {"", "", {}, "vendor_id", "model name", ""},
};

const Family& family_of(std::string_view architecture) {
  for (const auto& family : kFamilies) {
    if (starts_with(architecture, family.prefix)) return family;
  }
  return kFamilies[std::size(kFamilies) - 1];
}

std::string no_line(std::string_view key) {
  return std::string(kCpuinfoPath) + ": no \"" + std::string(key) + "\" line";
}

// "processor 0: version = FF,  identification = 29AA14,  machine = 2817": the machine type is
// the same on every processor line.
std::optional<std::string> s390_machine_type(std::string_view cpuinfo) {
  constexpr std::string_view kMarker = "machine = ";
  for (const auto& line : split_lines(cpuinfo)) {
    const auto at = line.find(kMarker);
    if (!starts_with(line, "processor ") || at == std::string::npos) continue;
    const auto words = split_whitespace(std::string_view(line).substr(at + kMarker.size()));
    if (!words.empty()) return words.front();
  }
  return std::nullopt;
}

Json family_section(const Family& family, std::string_view cpuinfo) {
  Json section = Json::object();
  for (const auto& key : family.keys) {
    const auto value = find_colon_field(cpuinfo, key.cpuinfo);
    const auto number = value && key.integer ? parse_int(*value) : std::nullopt;
    if (!value) {
      mark_unavailable(section, key.json, no_line(key.cpuinfo));
    } else if (key.integer && !number) {
      mark_unavailable(section, key.json,
                       std::string(kCpuinfoPath) + ": " + std::string(key.cpuinfo) +
                           ": expected an integer, found " + quote_value(*value));
    } else {
      section[std::string(key.json)] = key.integer ? Json(*number) : Json(*value);
    }
  }
  if (family.section == "s390") {
    if (const auto machine = s390_machine_type(cpuinfo)) {
      section["machine_type"] = *machine;
    } else {
      mark_unavailable(section, "machine_type", no_line("processor N: … machine = "));
    }
  }
  return section;
}

// One of the Arm names: found in the table, or why not.
void put_arm_name(Json& processor, std::string_view key, const Json& arm, std::string_view id_key,
                  std::optional<std::string_view> (*lookup)(uint64_t, uint64_t)) {
  const auto implementer = arm.contains("implementer")
                               ? parse_uint(arm["implementer"].get<std::string>())
                               : std::nullopt;
  const auto id =
      arm.contains(id_key) ? parse_uint(arm[std::string(id_key)].get<std::string>()) : std::nullopt;
  const auto name = implementer && id ? lookup(*implementer, *id) : std::nullopt;
  if (name) {
    processor[std::string(key)] = std::string(*name);
  } else if (!implementer || !id) {
    mark_unavailable(processor, key,
                     std::string(kCpuinfoPath) + ": no hexadecimal \"CPU implementer\" and \"CPU " +
                         std::string(id_key) + "\"");
  } else {
    mark_unavailable(processor, key,
                     "Arm " + std::string(id_key) + " " +
                         arm[std::string(id_key)].get<std::string>() + " (implementer " +
                         arm["implementer"].get<std::string>() +
                         ") is not in kdrift's table (collect/arm_cpu_table.cpp)");
  }
}

std::optional<std::string_view> implementer_only(uint64_t implementer, uint64_t) {
  return arm_implementer_name(implementer);
}

void put_named(Json& processor, std::string_view key, std::string_view cpuinfo_key,
               std::string_view note, const std::string& architecture, std::string_view cpuinfo) {
  if (cpuinfo_key.empty()) {
    mark_unavailable(processor, key,
                     architecture + "'s " + std::string(kCpuinfoPath) + " names no " +
                         std::string(key == "vendor" ? "vendor" : "model") +
                         (note.empty() ? "" : ": " + std::string(note)));
  } else if (const auto value = find_colon_field(cpuinfo, cpuinfo_key)) {
    processor[std::string(key)] = *value;
  } else {
    mark_unavailable(processor, key,
                     no_line(cpuinfo_key) + (note.empty() ? "" : " (" + std::string(note) + ")"));
  }
}

}  // namespace

std::optional<std::string> cpuinfo_architecture(std::string_view cpuinfo) {
  const auto field = [&](std::string_view key) { return find_colon_field(cpuinfo, key); };
  const auto contains = [](const std::optional<std::string>& text, std::string_view word) {
    return text && text->find(word) != std::string::npos;
  };
  if (field("CPU implementer")) {
    // arm64 prints no model name; 32-bit kernels print "model name", or "Processor" before 3.8.
    return field("model name") || field("Processor") ? "arm" : "arm64";
  }
  if (const auto isa = field("isa"); isa && starts_with(*isa, "rv")) {
    return starts_with(*isa, "rv32") ? "riscv32" : "riscv64";
  }
  if (const auto isa = field("ISA"); field("CPU Family") || contains(isa, "loongarch")) {
    return contains(isa, "loongarch32") && !contains(isa, "loongarch64") ? "loongarch32"
                                                                         : "loongarch64";
  }
  const auto vendor = field("vendor_id");
  if (vendor && *vendor == "IBM/S390") return "s390";
  if (vendor && field("flags")) return "x86";
  if (field("cpu") && (contains(field("revision"), "pvr") || field("timebase"))) return "powerpc";
  if (field("ncpus probed") || (field("type") && starts_with(*field("type"), "sun4"))) {
    return "sparc";
  }
  if (field("cpu model")) return "mips";
  return std::nullopt;
}

Json cpu_identity(std::string_view cpuinfo) {
  Json processor = Json::object();
  const auto architecture = cpuinfo_architecture(cpuinfo);
  if (architecture) {
    processor["architecture"] = *architecture;
  } else {
    mark_unavailable(processor, "architecture",
                     std::string(kCpuinfoPath) + ": no key that only one architecture prints");
  }
  const Family& family = family_of(architecture.value_or(""));
  const std::string name = architecture.value_or("this architecture");
  if (family.section.empty()) {
    put_named(processor, "vendor", family.vendor, "", name, cpuinfo);
    put_named(processor, "model_name", family.model_name, "", name, cpuinfo);
    return processor;
  }
  Json section = family_section(family, cpuinfo);
  if (family.section == "arm") {
    put_arm_name(processor, "vendor", section, "implementer", implementer_only);
    put_arm_name(processor, "model_name", section, "part", arm_part_name);
  } else {
    put_named(processor, "vendor", family.vendor, "", name, cpuinfo);
    put_named(processor, "model_name", family.model_name, family.model_note, name, cpuinfo);
  }
  processor[std::string(family.section)] = std::move(section);
  return processor;
}

Result<Json> read_cpu_identity(const SysRoot& root) {
  auto head = cpuinfo_head(root);
  if (!head) return head.error();
  if (cpuinfo_architecture(*head) != "powerpc") return cpu_identity(*head);
  auto whole = root.read_shared(kCpuinfoPath);
  if (!whole) return whole.error();
  return cpu_identity(*whole);
}

}  // namespace kdrift
