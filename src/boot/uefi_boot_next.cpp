#include "boot/uefi_boot_next.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <vector>

#include "boot/kexec_image.h"
#include "boot/loader_boot.h"
#include "util/text.h"

namespace kdrift {
namespace {

// Enough of an image's head to tell a Linux kernel: x86's setup header ends at 0x206.
constexpr size_t kImageHeadBytes = 0x240;

EfiVariableId efi_global_variable(std::string name) {
  return {std::move(name), std::string(kEfiGlobalGuid)};
}

std::string boot_number_hex(uint16_t number) {
  char text[5];
  std::snprintf(text, sizeof text, "%04X", static_cast<unsigned>(number));
  return text;
}

// The loaders whose file names say what they are; a host booted through one of them has its own
// one-shot boot, and BootNext to a kernel would bypass what it sets up (shim's keys, GRUB's
// configuration, systemd-boot's entries).
std::string loader_named_by(std::string_view image_path) {
  std::string file(image_path.substr(image_path.rfind('\\') + 1));
  std::transform(file.begin(), file.end(), file.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
  static constexpr std::pair<std::string_view, std::string_view> kLoaders[] = {
      {"shim", "shim"},
      {"grub", "GRUB"},
      {"systemd-boot", "systemd-boot"},
      {"bootmgfw", "the Windows Boot Manager"},
      {"refind", "rEFInd"},
  };
  for (const auto& [prefix, loader] : kLoaders) {
    if (file.starts_with(prefix)) return std::string(loader);
  }
  return {};
}

// A Linux kernel image as its EFI stub starts: a PE file ("MZ") with x86's boot protocol header
// ("HdrS" at 0x202), arm64's or RISC-V's image magic at 0x38, or the generic compressed EFI image
// ("zimg" at 4).
bool looks_like_linux_efi_stub(std::string_view head) {
  if (head.size() < 0x40 || !head.starts_with("MZ")) return false;
  if (head.substr(4, 4) == "zimg") return true;
  if (head.substr(0x38, 4) == "ARM\x64" || head.substr(0x38, 4) == "RSC\x05") return true;
  return head.size() >= 0x206 && head.substr(0x202, 4) == "HdrS";
}

// "\EFI\Linux\vmlinuz.efi" -> "EFI/Linux/vmlinuz.efi"; nullopt for a path with an empty, "." or
// ".." component, which no file on the ESP is named by.
std::optional<std::string> relative_to_esp(std::string_view firmware_path) {
  std::vector<std::string> parts = split(firmware_path, '\\');
  if (!parts.empty() && parts.front().empty()) parts.erase(parts.begin());
  for (const std::string& part : parts) {
    if (part.empty() || part == "." || part == ".." || part.find('/') != std::string::npos) {
      return std::nullopt;
    }
  }
  if (parts.empty()) return std::nullopt;
  return join(parts, "/");
}

std::string uefi_entry_label(uint16_t number, const EfiLoadOption& option) {
  return boot_entry_name(number) + " \"" + terminal_safe(option.description) + "\"";
}

uint64_t lba_in_sectors(uint64_t blocks, uint64_t block_size) {
  return blocks * block_size / 512;
}

}  // namespace

std::string uefi_entry_description(std::string_view bisect_id) {
  return "kdrift bisect " + std::string(bisect_id);
}

UefiBootNext::UefiBootNext(const SysRoot& root, std::string root_path, std::string esp,
                           std::string efivars, std::string bisect_id)
    : root_(root),
      root_path_(std::move(root_path)),
      esp_(std::move(esp)),
      efivars_(std::move(efivars)),
      bisect_id_(std::move(bisect_id)) {}

Result<EfiVars> UefiBootNext::open_variables() const {
  auto vars = EfiVars::open(efivars_);
  if (vars || vars.error().code != ENOENT) return vars;
  if (root_.kind("/sys/firmware/efi")) {
    return content_error("efivarfs is not mounted at " + efivars_ +
                         ": mount it (mount -t efivarfs efivarfs " + efivars_ +
                         ") for kdrift to set the next boot");
  }
  return content_error("this host did not boot through UEFI (there is no " + efivars_ +
                       "): BootNext needs UEFI firmware; boot the candidates with kexec or the "
                       "boot loader instead");
}

Result<UefiBootTemplate> UefiBootNext::read_template(const EfiVars& vars) const {
  auto current = vars.read(efi_global_variable("BootCurrent"));
  if (!current) {
    if (current.error().code != ENOENT) return current.error();
    return content_error("BootCurrent is not set in " + efivars_ +
                         ": the firmware does not say which boot entry started this host, so "
                         "there is no entry to copy the ESP's partition from");
  }
  auto number = decode_boot_number(current->data);
  if (!number) return content_error("BootCurrent in " + efivars_ + ": " + number.error().context);
  const std::string entry_name = boot_entry_name(*number);
  auto entry = vars.read(efi_global_variable(entry_name));
  if (!entry) {
    if (entry.error().code != ENOENT) return entry.error();
    return content_error("BootCurrent names " + entry_name + ", which is not in " + efivars_);
  }
  auto option = parse_efi_load_option(entry->data);
  if (!option) {
    return content_error(entry_name + " (the entry this host booted from) cannot be read: " +
                         option.error().context);
  }
  const std::vector<EfiDevicePathNode> image = option->image_path();
  const auto drive = std::find_if(image.begin(), image.end(), [](const EfiDevicePathNode& node) {
    return parse_hard_drive_node(node).ok();
  });
  if (drive == image.end() || image.end() - drive != 2 ||
      !parse_file_path_node(image.back()).ok()) {
    return content_error(uefi_entry_label(*number, *option) +
                         ", the entry this host booted from, " + "boots " +
                         describe_device_path(image) +
                         ", not a file on a hard drive partition: BootNext can only boot a "
                         "kernel on the EFI system partition");
  }
  return UefiBootTemplate{*number, std::move(*option), *drive, *parse_file_path_node(image.back())};
}

// The partition the running kernel's entry starts from must be the one mounted at the ESP: its
// number, first sector and size as sysfs gives them for the mount's device. A device that is not
// a partition (an ESP mirrored by md RAID) cannot be compared and is taken as it is.
Status UefiBootNext::check_partition(const UefiBootTemplate& found) const {
  const EfiHardDrive drive = *parse_hard_drive_node(found.partition);
  struct stat esp {};
  if (::stat(below_root(root_path_, esp_).c_str(), &esp) != 0) {
    return make_error(errno, "the EFI system partition's mount point " + esp_);
  }
  const std::string device = "/sys/dev/block/" + std::to_string(major(esp.st_dev)) + ":" +
                             std::to_string(minor(esp.st_dev));
  auto number = root_.read_value(device + "/partition");
  if (!number) return ok_status();
  const auto start = parse_uint(root_.read_value(device + "/start").value_or(""));
  const auto size = parse_uint(root_.read_value(device + "/size").value_or(""));
  uint64_t block_size = 512;
  if (auto partition = root_.resolve(device)) {
    const std::string disk = partition->substr(0, partition->rfind('/'));
    block_size =
        parse_uint(root_.read_value(disk + "/queue/logical_block_size").value_or("")).value_or(512);
  }
  if (parse_uint(*number) == drive.partition_number &&
      start == lba_in_sectors(drive.start_lba, block_size) &&
      size == lba_in_sectors(drive.size_lba, block_size)) {
    return ok_status();
  }
  return content_error(esp_ + " is on partition " + terminal_safe(*number) + " (sectors from " +
                       std::to_string(start.value_or(0)) + ", " + std::to_string(size.value_or(0)) +
                       " sectors), not the one " +
                       uefi_entry_label(found.boot_current, found.option) + " boots from (" +
                       describe_device_path({found.partition}) +
                       "): is the EFI system partition mounted there?");
}

// The running kernel must be what the entry boots: a Linux kernel the firmware started as an EFI
// stub (or a unified kernel image, whose stub says so in StubInfo), not a loader with a one-shot
// boot of its own.
Status UefiBootNext::check_running_image(const EfiVars& vars, const UefiBootTemplate& found) const {
  const std::string entry = uefi_entry_label(found.boot_current, found.option) + ": " +
                            describe_device_path(found.option.image_path());
  if (const std::string loader = loader_named_by(found.image_path); !loader.empty()) {
    return content_error("this host boots through " + loader + " (" + entry + "); use that");
  }
  if (auto info = vars.read({"LoaderInfo", std::string(kSystemdBootLoaderGuid)})) {
    auto name = utf16le_to_utf8(info->data, 256);
    return content_error("this host boots through " +
                         (name ? terminal_safe(*name) : std::string("a boot loader")) +
                         " (it set LoaderInfo; " + entry + "); use that");
  }
  const auto relative = relative_to_esp(found.image_path);
  auto head = relative ? root_.read_head(esp_ + "/" + *relative, kImageHeadBytes)
                       : Result<std::string>(content_error("not a path"));
  if (!head) {
    return content_error(entry +
                         ", the entry this host booted from, names a file that is not "
                         "below " +
                         esp_ + ": is the EFI system partition mounted there?");
  }
  if (!looks_like_linux_efi_stub(*head) &&
      !vars.read({"StubInfo", std::string(kSystemdBootLoaderGuid)}).ok()) {
    return content_error("this host boots through " + terminal_safe(found.image_path) + " (" +
                         entry + "), which is not a Linux kernel booted as an EFI stub; use that");
  }
  return ok_status();
}

Result<UefiBootTemplate> UefiBootNext::check_loader() const {
  auto vars = open_variables();
  if (!vars) return vars.error();
  auto found = read_template(*vars);
  if (!found) return found.error();
  if (auto running = check_running_image(*vars, *found); !running) return running.error();
  if (auto partition = check_partition(*found); !partition) return partition.error();
  if (auto writable = vars->check_writable(); !writable) return writable.error();
  return found;
}

// path's place on the ESP as the firmware names it ("\EFI\Linux\vmlinuz.efi"): every symbolic
// link resolved below the root first, none leading out of the ESP, and the file one only root can
// change (open_kexec_image's judgement), since the firmware boots whatever is there.
Result<std::string> UefiBootNext::esp_file_path(const std::string& path,
                                                std::string_view what) const {
  const std::string subject = std::string(what) + " " + terminal_safe(path);
  auto resolved = root_.resolve(path);
  if (!resolved) return make_error(resolved.error().code, subject);
  auto esp = root_.resolve(esp_);
  if (!esp) return make_error(esp.error().code, "the ESP " + esp_ + ": " + esp.error().context);
  if (!resolved->starts_with(*esp == "/" ? "/" : *esp + "/")) {
    return content_error(subject +
                         (*resolved == path ? "" : " (" + terminal_safe(*resolved) + ")") +
                         " is not on the EFI system partition mounted at " + esp_ +
                         ": the firmware boots only files there; copy it below " + esp_);
  }
  std::string on_esp = resolved->substr(*esp == "/" ? 0 : esp->size());
  if (on_esp.find('\\') != std::string::npos) {
    return content_error(subject + ": a '\\' in its name, which the firmware reads as a separator");
  }
  std::replace(on_esp.begin(), on_esp.end(), '/', '\\');
  auto opened = open_kexec_image(below_root(root_path_, *resolved), what);
  if (!opened) return opened.error();
  return on_esp;
}

Result<UefiBootNext::Prepared> UefiBootNext::plan_entry(const UefiBootTemplate& found,
                                                        const BootImage& image) const {
  auto kernel = esp_file_path(image.kernel, "kernel");
  if (!kernel) return kernel.error();
  std::string line(trim(with_panic_reboot(image.command_line)));
  if (!image.initrd.empty()) {
    // The stub loads initrd= from the partition it was started from.
    auto initrd = esp_file_path(image.initrd, "initrd");
    if (!initrd) return initrd.error();
    if (initrd->find_first_of(" \t\n") != std::string::npos) {
      return content_error("initrd " + terminal_safe(image.initrd) +
                           ": a space in its name, which initrd= on the command line cannot carry");
    }
    line = "initrd=" + *initrd + " " + line;
  }
  auto optional_data = utf8_to_utf16le(line);
  if (!optional_data) return content_error("the command line: " + optional_data.error().context);
  auto file = file_path_node(*kernel);
  if (!file)
    return content_error("kernel " + terminal_safe(image.kernel) + ": " + file.error().context);
  EfiLoadOption option{kEfiLoadOptionActive,
                       uefi_entry_description(bisect_id_),
                       {found.partition, std::move(*file), end_entire_node()},
                       std::move(*optional_data)};
  auto bytes = build_efi_load_option(option);
  if (!bytes) return bytes.error();
  return Prepared{image, std::move(*bytes),
                  describe_device_path(option.file_path_list) + " \"" + terminal_safe(line) + "\""};
}

Status UefiBootNext::prepare(const BootImage& image) {
  prepared_.reset();
  if (auto id = loader_entry_id(bisect_id_); !id) return id.error();
  auto found = check_loader();
  if (!found) return found.error();
  auto planned = plan_entry(*found, image);
  if (!planned) return planned.error();
  prepared_ = std::move(*planned);
  return ok_status();
}

namespace {

// This bisect's entries, by number: the Boot#### whose description is kdrift's for this bisect.
// An entry that cannot be read or parsed is someone else's.
Result<std::vector<uint16_t>> own_uefi_entries(const EfiVars& vars, std::string_view bisect_id) {
  auto listed = vars.list();
  if (!listed) return listed.error();
  const std::string description = uefi_entry_description(bisect_id);
  std::vector<uint16_t> own;
  for (const EfiVariableId& id : *listed) {
    const auto number = parse_boot_entry_name(id.name);
    if (!number || id.guid != kEfiGlobalGuid) continue;
    auto entry = vars.read(id);
    if (!entry) continue;
    auto option = parse_efi_load_option(entry->data);
    if (option && option->description == description) own.push_back(*number);
  }
  return own;
}

}  // namespace

Result<std::optional<uint16_t>> UefiBootNext::own_entry(const EfiVars& vars) const {
  auto own = own_uefi_entries(vars, bisect_id_);
  if (!own) return own.error();
  if (own->empty()) return std::optional<uint16_t>();
  return std::optional<uint16_t>(own->front());
}

// This bisect's entry when there is one (rewritten at each step), else the first number from
// kFirstKdriftBootEntry that no entry has.
Result<uint16_t> UefiBootNext::entry_number(const EfiVars& vars) const {
  auto own = own_entry(vars);
  if (!own) return own.error();
  if (*own) return **own;
  auto listed = vars.list();
  if (!listed) return listed.error();
  for (uint32_t number = kFirstKdriftBootEntry; number <= 0xffff; ++number) {
    const EfiVariableId id = efi_global_variable(boot_entry_name(static_cast<uint16_t>(number)));
    if (std::find(listed->begin(), listed->end(), id) == listed->end()) {
      return static_cast<uint16_t>(number);
    }
  }
  return content_error(efivars_ + ": every boot entry number from Boot1000 up is taken");
}

// The entry before BootNext: the firmware must never be told to boot an entry that is not there.
Status UefiBootNext::write_entry(const EfiVars& vars, uint16_t number, std::ostream& log) const {
  const EfiVariableId entry = efi_global_variable(boot_entry_name(number));
  const bool existed = vars.read(entry).ok();
  if (auto written = vars.write(entry, {kEfiVariableDefaultAttributes, prepared_->entry});
      !written) {
    return written;
  }
  auto next = vars.write(efi_global_variable("BootNext"),
                         {kEfiVariableDefaultAttributes, encode_boot_number(number)});
  if (!next) {
    if (!existed) (void)vars.remove(entry);
    return next;
  }
  log << "the firmware boots " << terminal_safe(prepared_->image.label) << " once ("
      << boot_entry_name(number) << ": " << prepared_->shown
      << ", BootNext=" << boot_number_hex(number) << "); BootOrder is unchanged\n";
  return ok_status();
}

Status UefiBootNext::boot(const BootImage& image, const BootOptions& options, std::ostream& log) {
  if (!prepared_ || prepared_->image.kernel != image.kernel ||
      prepared_->image.initrd != image.initrd ||
      prepared_->image.command_line != image.command_line) {
    return content_error("bisect step: a UEFI boot entry for an image its check did not see");
  }
  auto vars = open_variables();
  if (!vars) return vars.error();
  if (auto writable = vars->check_writable(); !writable) return writable;
  auto number = entry_number(*vars);
  if (!number) return number.error();
  if (options.dry_run) {
    log << "# would write " << boot_entry_name(*number) << " in " << terminal_safe(efivars_) << ": "
        << prepared_->shown << "\n# would set BootNext=" << boot_number_hex(*number)
        << (options.reboot ? ", then reboot\n" : "\n");
    return ok_status();
  }
  if (auto written = write_entry(*vars, *number, log); !written) return written;
  if (options.reboot) return reboot_machine(root_, log);
  log << "reboot when ready: the next boot runs it\n";
  return ok_status();
}

Status UefiBootNext::undo(std::ostream& log) {
  auto vars = EfiVars::open(efivars_);
  if (!vars) return vars.error().code == ENOENT ? ok_status() : Status(vars.error());
  auto own = own_uefi_entries(*vars, bisect_id_);
  if (!own) return own.error();
  if (own->empty()) return ok_status();
  const EfiVariableId next_id = efi_global_variable("BootNext");
  if (auto next = vars->read(next_id)) {
    const auto number = decode_boot_number(next->data);
    if (number && std::find(own->begin(), own->end(), *number) != own->end()) {
      if (auto removed = vars->remove(next_id); !removed) return removed;
      log << "deleted BootNext (it named " << boot_entry_name(*number) << ")\n";
    }
  }
  for (const uint16_t number : *own) {
    if (auto removed = vars->remove(efi_global_variable(boot_entry_name(number))); !removed) {
      return removed;
    }
    log << "deleted " << boot_entry_name(number) << " (" << uefi_entry_description(bisect_id_)
        << ")\n";
  }
  return ok_status();
}

}  // namespace kdrift
