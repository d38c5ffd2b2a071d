#include "boot/grub_boot.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "boot/kexec_image.h"
#include "boot/loader_boot.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxGrubConfigBytes = std::size_t{4} << 20;
constexpr std::size_t kMaxGrubEnvironmentBytes = std::size_t{64} << 10;
constexpr long kBtrfsMagic = 0x9123683e;
constexpr long kZfsMagic = 0x2fc12fc1;

std::string begin_marker(std::string_view id) {
  return "### BEGIN kdrift bisect " + std::string(id) + " (kdrift bisect reset removes it) ###";
}
std::string end_marker(std::string_view id) {
  return "### END kdrift bisect " + std::string(id) + " ###";
}

bool is_command(const std::vector<std::string>& words,
                std::initializer_list<std::string_view> names) {
  return !words.empty() && std::find(names.begin(), names.end(), words[0]) != names.end();
}

bool is_recovery(const GrubEntry& entry) {
  return std::any_of(
      entry.linux_arguments.begin(), entry.linux_arguments.end(),
      [](const std::string& word) { return word == "single" || word == "recovery"; });
}

// The host directory GRUB's root device is mounted on for an entry whose kernel the host sees at
// host_path: "" when GRUB's root is the root filesystem, "/boot" for a separate /boot.
std::optional<std::string> mount_prefix(std::string_view host_path, std::string_view grub_path) {
  if (grub_path.empty() || grub_path.front() != '/') return std::nullopt;
  if (host_path == grub_path) return "";
  if (host_path == "/boot" + std::string(grub_path)) return "/boot";
  return std::nullopt;
}

// The first entry that boots kernel (an ordinary one before a recovery one), and its prefix.
const GrubEntry* entry_booting(const GrubConfig& config, std::string_view kernel,
                               std::string& prefix) {
  for (const bool recovery : {false, true}) {
    for (const GrubEntry& entry : config.entries) {
      if (is_recovery(entry) != recovery) continue;
      if (auto found = mount_prefix(kernel, entry.linux_path)) {
        prefix = *found;
        return &entry;
      }
    }
  }
  return nullptr;
}

// The running kernel's entry (BOOT_IMAGE= is its linux path), else the first that boots one.
const GrubEntry* running_entry(const GrubConfig& config, std::string_view running_cmdline) {
  std::string boot_image;
  for (const std::string& word : split_whitespace(running_cmdline)) {
    if (starts_with(word, "BOOT_IMAGE=")) boot_image = word.substr(11);
  }
  const GrubEntry* first = nullptr;
  for (const GrubEntry& entry : config.entries) {
    if (entry.linux_path.empty() || is_recovery(entry)) continue;
    if (entry.linux_path == boot_image) return &entry;
    if (first == nullptr) first = &entry;
  }
  return first;
}

// The template's commands that load modules and find its disk; not the kernel and initrd, which
// kdrift writes, nor what would make the entry the default or hold the next boot at the menu.
Result<std::string> disk_lookup_lines(const GrubEntry& entry) {
  std::string lines;
  for (const std::string& line : entry.lines) {
    auto words = grub_words(line);
    if (!words) return words.error();
    if (is_command(*words, {"linux", "linux16", "linuxefi", "initrd", "initrd16", "initrdefi",
                            "echo", "savedefault", "recordfail"})) {
      continue;
    }
    lines += "\t" + line + "\n";
  }
  return lines;
}

// Each word of the candidate's command line as GRUB must pass it on unchanged: GRUB re-quotes a
// word with a space, a quote or a backslash for the kernel, so those are refused.
Result<std::string> grub_kernel_arguments(std::string_view command_line) {
  std::string quoted;
  for (const std::string& word : split_whitespace(command_line)) {
    if (word.find_first_of("\"\\'") != std::string::npos) {
      return content_error("the command-line word \"" + terminal_safe(word) +
                           "\" has a quote or a backslash, which GRUB would pass on changed");
    }
    auto safe = grub_quoted(word);
    if (!safe) return safe.error();
    quoted += " " + *safe;
  }
  return quoted;
}

// What a menu shows of the candidate: its name with anything GRUB would read as syntax dropped.
std::string menu_label(std::string_view label) {
  std::string shown;
  for (const char c : label.substr(0, 64)) {
    shown += (c > ' ' && c < 127 && c != '\'' && c != '\\') ? c : '_';
  }
  return shown;
}

// Why GRUB could not clear next_entry in the environment block open at fd, or empty.
std::string unwritable_by_grub(const SysRoot& root, int fd) {
  struct statfs filesystem {};
  if (::fstatfs(fd, &filesystem) == 0) {
    if (static_cast<long>(filesystem.f_type) == kBtrfsMagic) return "it is on btrfs";
    if (static_cast<long>(filesystem.f_type) == kZfsMagic) return "it is on ZFS";
  }
  struct stat status {};
  if (::fstat(fd, &status) != 0) return "";
  const std::string device = "/sys/dev/block/" + std::to_string(major(status.st_dev)) + ":" +
                             std::to_string(minor(status.st_dev));
  if (root.kind(device + "/dm")) return "it is on device-mapper (LVM, LUKS)";
  if (root.kind(device + "/md")) return "it is on md RAID";
  return "";
}

}  // namespace

GrubBoot::GrubBoot(const SysRoot& root, std::string root_path, std::string directory,
                   std::string bisect_id, std::string running_cmdline)
    : root_(root),
      root_path_(std::move(root_path)),
      directory_(std::move(directory)),
      bisect_id_(std::move(bisect_id)),
      running_cmdline_(std::move(running_cmdline)) {}

Result<TrustedDir> GrubBoot::open_grub_directory() const {
  return TrustedDir::open(below_root(root_path_, directory_));
}

std::string GrubBoot::custom_config_with(std::string_view current, std::string_view entry) const {
  const auto id = loader_entry_id(bisect_id_);
  std::string text(current);
  if (id) {
    const auto begin = text.find(begin_marker(*id));
    const auto end = begin == std::string::npos ? begin : text.find(end_marker(*id), begin);
    if (end != std::string::npos) {
      auto stop = end + end_marker(*id).size();
      if (stop < text.size() && text[stop] == '\n') ++stop;
      text.erase(begin, stop - begin);
    }
  }
  if (entry.empty()) return text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text + std::string(entry);
}

Result<GrubBoot::Prepared> GrubBoot::plan_entry(const GrubConfig& config,
                                                const BootImage& image) const {
  auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  Prepared prepared{image, "", "", "", {}, {}};
  std::string prefix;
  const GrubEntry* entry = entry_booting(config, image.kernel, prefix);
  std::string kernel_path = entry != nullptr ? entry->linux_path : "";
  if (entry == nullptr) {
    entry = running_entry(config, running_cmdline_);
    if (entry == nullptr) return content_error("no entry in grub.cfg boots a kernel");
    if (!root_.kind(entry->linux_path)) prefix = "/boot";  // GRUB's root is a separate /boot
    // A kernel no entry boots is copied to /boot/kdrift-<id>/, on the running kernel's disk.
    kernel_path = (prefix.empty() ? "/boot/" : "/") + *id + "/vmlinuz";
    prepared.copy_kernel = image.kernel;
  }
  std::string initrd_path;
  if (!image.initrd.empty()) {
    const auto initrd_prefix =
        prepared.copy_kernel.empty()
            ? std::find_if(entry->initrd_paths.begin(), entry->initrd_paths.end(),
                           [&](const std::string& path) { return prefix + path == image.initrd; })
            : entry->initrd_paths.end();
    if (initrd_prefix != entry->initrd_paths.end()) {
      initrd_path = *initrd_prefix;
    } else {
      initrd_path = (prefix.empty() ? "/boot/" : "/") + *id + "/initrd.img";
      prepared.copy_initrd = image.initrd;
    }
  }
  auto lookup = disk_lookup_lines(*entry);
  if (!lookup) return lookup.error();
  auto arguments = grub_kernel_arguments(with_panic_reboot(image.command_line));
  if (!arguments) return arguments.error();
  auto kernel = grub_quoted(kernel_path);
  auto initrd = grub_quoted(initrd_path);
  if (!kernel || !initrd) return content_error("a kernel or initrd path GRUB cannot be given");
  prepared.entry_text = begin_marker(*id) + "\nmenuentry 'kdrift bisect " + bisect_id_ + ": " +
                        menu_label(image.label) + "' --id '" + *id + "' {\n" + *lookup +
                        "\tlinux\t" + *kernel + *arguments + "\n" +
                        (initrd_path.empty() ? "" : "\tinitrd\t" + *initrd + "\n") + "}\n" +
                        end_marker(*id) + "\n";
  return prepared;
}

Result<GrubConfig> GrubBoot::check_loader() const {
  auto directory = open_grub_directory();
  if (!directory) return directory.error();
  const std::string config_path = directory->path_of("grub.cfg");
  auto text = directory->read_file("grub.cfg", kMaxGrubConfigBytes);
  if (!text) return text.error();
  auto config = parse_grub_config(*text);
  if (!config)
    return content_error(config_path + ": kdrift cannot read it: " + config.error().describe());
  if (!config->loads_environment || !config->honours_next_entry) {
    return content_error(config_path +
                         " cannot boot an entry once: it does not load grubenv, take the default "
                         "from next_entry and clear it with save_env (Debian's "
                         "/etc/grub.d/00_header writes that: run update-grub)");
  }
  if (!config->sources_custom_cfg) {
    return content_error(config_path +
                         " does not source custom.cfg, where kdrift puts its entry (Debian's "
                         "/etc/grub.d/41_custom writes that: restore it and run update-grub)");
  }
  const std::string environment_path = directory->path_of("grubenv");
  auto environment = directory->read_file("grubenv", kMaxGrubEnvironmentBytes);
  if (!environment && environment.error().code == ENOENT) {
    return content_error("no " + environment_path + ": GRUB keeps next_entry there (grub-editenv " +
                         environment_path + " create)");
  }
  if (!environment) return environment.error();
  if (auto parsed = parse_grub_environment(*environment); !parsed) {
    return content_error(environment_path + ": " + parsed.error().describe());
  }
  auto writable = directory->open_file("grubenv", O_RDWR);
  if (!writable) {
    return make_error(writable.error().code,
                      environment_path + " is not writable: " + writable.error().describe());
  }
  if (const std::string why = unwritable_by_grub(root_, writable->get()); !why.empty()) {
    return content_error("GRUB cannot write " + environment_path + " (" + why +
                         "): it would never clear next_entry, and every boot would be the "
                         "candidate");
  }
  return std::move(*config);
}

Status GrubBoot::prepare(const BootImage& image) {
  prepared_.reset();
  auto config = check_loader();
  if (!config) return config.error();
  const std::string config_path = below_root(root_path_, directory_) + "/grub.cfg";
  auto prepared = plan_entry(*config, image);
  if (!prepared) return content_error(config_path + ": " + prepared.error().describe());
  auto kernel = open_kexec_image(below_root(root_path_, image.kernel), "kernel");
  if (!kernel) return kernel.error();
  prepared->kernel_file = std::move(*kernel);
  if (!image.initrd.empty()) {
    auto initrd = open_kexec_image(below_root(root_path_, image.initrd), "initrd");
    if (!initrd) return initrd.error();
    prepared->initrd_file = std::move(*initrd);
  }
  prepared_ = std::move(*prepared);
  return ok_status();
}

Status GrubBoot::copy_candidate_files(const Prepared& prepared) const {
  const auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  std::vector<FileCopy> copies;
  if (!prepared.copy_kernel.empty()) {
    copies.push_back({prepared.kernel_file.get(), "vmlinuz", prepared.copy_kernel});
  }
  if (!prepared.copy_initrd.empty()) {
    copies.push_back({prepared.initrd_file.get(), "initrd.img", prepared.copy_initrd});
  }
  return copy_candidate_files_into(below_root(root_path_, "/boot"), *id, copies);
}

Status GrubBoot::boot(const BootImage& image, const BootOptions& options, std::ostream& log) {
  if (!prepared_ || prepared_->image.kernel != image.kernel ||
      prepared_->image.initrd != image.initrd ||
      prepared_->image.command_line != image.command_line) {
    return content_error("bisect step: a GRUB entry for an image its check did not see");
  }
  const auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  const std::string shown_directory = below_root(root_path_, directory_);
  if (options.dry_run) {
    log << "# would add to " << terminal_safe(shown_directory) << "/custom.cfg:\n"
        << terminal_safe(prepared_->entry_text) << "# would set next_entry=" << *id << " in "
        << terminal_safe(shown_directory) << "/grubenv"
        << (options.reboot ? ", then reboot\n" : "\n");
    return ok_status();
  }
  if (auto copied = copy_candidate_files(*prepared_); !copied) return copied;
  auto directory = open_grub_directory();
  if (!directory) return directory.error();
  auto custom = directory->read_file("custom.cfg", kMaxGrubConfigBytes);
  if (!custom && custom.error().code != ENOENT) return custom.error();
  // The entry before next_entry: GRUB must never be told to boot an entry that is not there.
  if (auto written = directory->replace_file(
          "custom.cfg", custom_config_with(custom ? *custom : "", prepared_->entry_text), 0644);
      !written) {
    return written;
  }
  auto bytes = directory->read_file("grubenv", kMaxGrubEnvironmentBytes);
  if (!bytes) return bytes.error();
  auto environment = parse_grub_environment(*bytes);
  if (!environment)
    return content_error(directory->path_of("grubenv") + ": " + environment.error().describe());
  set_grub_variable(*environment, "next_entry", *id);
  auto rendered = render_grub_environment(*environment);
  if (!rendered)
    return content_error(directory->path_of("grubenv") + ": " + rendered.error().describe());
  if (auto written = directory->replace_file("grubenv", *rendered, 0644); !written) return written;
  log << "GRUB boots " << terminal_safe(image.label) << " once (next_entry=" << *id
      << "); the default entry is unchanged\n";
  if (options.reboot) return reboot_machine(root_, log);
  log << "reboot when ready: the next boot runs it\n";
  return ok_status();
}

Status GrubBoot::undo(std::ostream& log) {
  const auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  auto directory = open_grub_directory();
  if (!directory) return directory.error().code == ENOENT ? ok_status() : Status(directory.error());
  auto custom = directory->read_file("custom.cfg", kMaxGrubConfigBytes);
  if (!custom && custom.error().code != ENOENT) return custom.error();
  if (custom) {
    const std::string without = custom_config_with(*custom, "");
    if (without != *custom) {
      auto removed = trim(without).empty() ? directory->remove_file("custom.cfg")
                                           : directory->replace_file("custom.cfg", without, 0644);
      if (!removed) return removed;
      log << "removed kdrift's entry from " << terminal_safe(directory->path_of("custom.cfg"))
          << "\n";
    }
  }
  auto bytes = directory->read_file("grubenv", kMaxGrubEnvironmentBytes);
  if (!bytes && bytes.error().code != ENOENT) return bytes.error();
  if (bytes) {
    auto environment = parse_grub_environment(*bytes);
    if (!environment)
      return content_error(directory->path_of("grubenv") + ": " + environment.error().describe());
    if (grub_variable(*environment, "next_entry") == *id) {
      set_grub_variable(*environment, "next_entry", "");
      auto rendered = render_grub_environment(*environment);
      if (!rendered) return rendered.error();
      if (auto written = directory->replace_file("grubenv", *rendered, 0644); !written)
        return written;
      log << "cleared next_entry in " << terminal_safe(directory->path_of("grubenv")) << "\n";
    }
  }
  return remove_copied_files(below_root(root_path_, "/boot/" + *id), log);
}

}  // namespace kdrift
