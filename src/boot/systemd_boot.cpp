#include "boot/systemd_boot.h"

#include <cerrno>

#include "boot/efi_vars.h"
#include "boot/kexec_image.h"
#include "boot/loader_boot.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::size_t kMaxEntries = 1000;
constexpr std::size_t kMaxEntryFileBytes = std::size_t{64} << 10;
const EfiVariableId kOneShot{"LoaderEntryOneShot", std::string(kSystemdBootLoaderGuid)};

// "/boot/vmlinuz-6.1.0-50-amd64" -> "6.1.0-50-amd64": the version Debian's kernel-install gives
// the kernel's entry.
std::string release_of(std::string_view kernel) {
  const auto slash = kernel.rfind('/');
  const std::string_view name = kernel.substr(slash == std::string_view::npos ? 0 : slash + 1);
  return starts_with(name, "vmlinuz-") ? std::string(name.substr(8)) : "";
}

Result<EfiVars> open_efivars(const SysRoot& root) {
  auto directory = efivars_directory(root);
  if (!directory) {
    return content_error("this host was not booted through UEFI (no efivarfs at " +
                         std::string(kEfivarsPath) + "): systemd-boot cannot be told what to boot");
  }
  return EfiVars::open(*directory);
}

}  // namespace

SystemdBoot::SystemdBoot(const SysRoot& root, std::string root_path, std::string esp,
                         std::string bisect_id)
    : root_(root),
      root_path_(std::move(root_path)),
      esp_(std::move(esp)),
      bisect_id_(std::move(bisect_id)) {}

Result<TrustedDir> SystemdBoot::open_entries() const {
  auto esp = TrustedDir::open(below_root(root_path_, esp_));
  if (!esp) return esp.error();
  auto loader = esp->subdirectory("loader");
  auto entries = loader ? loader->subdirectory("entries") : Result<TrustedDir>(loader.error());
  if (!entries && entries.error().code == ENOENT) {
    return content_error("no loader/entries below " + esp->path() +
                         ": the EFI system partition is not mounted there (mount it), or "
                         "systemd-boot is not installed (bootctl install)");
  }
  return entries;
}

Result<std::vector<BlsEntry>> SystemdBoot::check_loader() const {
  auto directory = open_entries();
  if (!directory) return directory.error();
  auto names = directory->list();
  if (!names) return names.error();
  if (names->size() > kMaxEntries) return content_error(directory->path() + ": over 1000 entries");
  std::vector<BlsEntry> entries;
  auto own = loader_entry_id(bisect_id_);
  for (const std::string& name : *names) {
    if (name.size() < 6 || name.substr(name.size() - 5) != ".conf") continue;
    if (own && name == *own + ".conf") continue;
    auto text = directory->read_file(name, kMaxEntryFileBytes);
    if (!text) return text.error();
    auto entry = parse_bls_entry(*text, name);
    if (!entry) return content_error(directory->path_of(name) + ": " + entry.error().describe());
    entries.push_back(std::move(*entry));
  }
  auto efivars = open_efivars(root_);
  if (!efivars) return efivars.error();
  if (auto writable = efivars->check_writable(); !writable) return writable.error();
  return entries;
}

Result<SystemdBoot::Prepared> SystemdBoot::plan_entry(const std::vector<BlsEntry>& entries,
                                                      const BootImage& image) const {
  auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  Prepared prepared{image, "", "", "", {}, {}};
  const std::string release = release_of(image.kernel);
  const BlsEntry* found = nullptr;
  for (const BlsEntry& entry : entries) {
    const bool same_file = !entry.linux_path.empty() && esp_ + entry.linux_path == image.kernel;
    if (same_file || (!release.empty() && entry.version == release)) {
      found = &entry;
      break;
    }
  }
  BlsEntry own;
  own.title = "kdrift bisect " + bisect_id_ + ": " + image.label;
  own.options = with_panic_reboot(image.command_line);
  if (found != nullptr) {
    own.version = found->version;
    own.machine_id = found->machine_id;
    own.linux_path = found->linux_path;
    if (!image.initrd.empty()) own.initrd_paths = found->initrd_paths;
  } else {
    // A kernel no entry boots is copied onto the ESP, where systemd-boot can read it.
    own.version = image.label;
    own.linux_path = "/" + *id + "/linux";
    prepared.copy_kernel = image.kernel;
    if (!image.initrd.empty()) {
      own.initrd_paths = {"/" + *id + "/initrd"};
      prepared.copy_initrd = image.initrd;
    }
  }
  auto text = render_bls_entry(
      own, "kdrift bisect " + bisect_id_ + ": `kdrift bisect reset` removes this entry");
  if (!text) return text.error();
  prepared.entry_text = std::move(*text);
  return prepared;
}

Status SystemdBoot::prepare(const BootImage& image) {
  prepared_.reset();
  auto entries = check_loader();
  if (!entries) return entries.error();
  auto prepared = plan_entry(*entries, image);
  if (!prepared) return prepared.error();
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

Status SystemdBoot::copy_candidate_files(const Prepared& prepared) const {
  const auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  std::vector<FileCopy> copies;
  if (!prepared.copy_kernel.empty()) {
    copies.push_back({prepared.kernel_file.get(), "linux", prepared.copy_kernel});
  }
  if (!prepared.copy_initrd.empty()) {
    copies.push_back({prepared.initrd_file.get(), "initrd", prepared.copy_initrd});
  }
  return copy_candidate_files_into(below_root(root_path_, esp_), *id, copies);
}

Status SystemdBoot::boot(const BootImage& image, const BootOptions& options, std::ostream& log) {
  if (!prepared_ || prepared_->image.kernel != image.kernel ||
      prepared_->image.initrd != image.initrd ||
      prepared_->image.command_line != image.command_line) {
    return content_error("bisect step: a systemd-boot entry for an image its check did not see");
  }
  const auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  const std::string file = *id + ".conf";
  if (options.dry_run) {
    log << "# would write " << terminal_safe(below_root(root_path_, esp_)) << "/loader/entries/"
        << file << ":\n"
        << terminal_safe(prepared_->entry_text) << "# would set LoaderEntryOneShot=" << file
        << (options.reboot ? ", then reboot\n" : "\n");
    return ok_status();
  }
  if (auto copied = copy_candidate_files(*prepared_); !copied) return copied;
  auto entries = open_entries();
  if (!entries) return entries.error();
  // The entry before the variable: systemd-boot must never be told to boot one that is not there.
  if (auto written = entries->replace_file(file, prepared_->entry_text, 0644); !written) {
    return written;
  }
  auto efivars = open_efivars(root_);
  if (!efivars) return efivars.error();
  auto name = utf8_to_utf16le(file);
  if (!name) return name.error();
  if (auto set = efivars->write(kOneShot, {kEfiVariableDefaultAttributes, *name}); !set) return set;
  log << "systemd-boot boots " << terminal_safe(image.label) << " once (LoaderEntryOneShot=" << file
      << "); the default entry is unchanged\n";
  if (options.reboot) return reboot_machine(root_, log);
  log << "reboot when ready: the next boot runs it\n";
  return ok_status();
}

Status SystemdBoot::undo(std::ostream& log) {
  const auto id = loader_entry_id(bisect_id_);
  if (!id) return id.error();
  const std::string file = *id + ".conf";
  if (auto entries = open_entries(); entries && entries->contains(file)) {
    if (auto removed = entries->remove_file(file); !removed) return removed;
    log << "removed " << terminal_safe(entries->path_of(file)) << "\n";
  }
  if (auto efivars = open_efivars(root_)) {
    auto set = efivars->read(kOneShot);
    if (!set && set.error().code != ENOENT) return set.error();
    const auto named = set ? utf16le_to_utf8(set->data) : Result<std::string>(set.error());
    if (named && *named == file) {
      if (auto removed = efivars->remove(kOneShot); !removed) return removed;
      log << "removed LoaderEntryOneShot\n";
    }
  }
  return remove_copied_files(below_root(root_path_, esp_ + "/" + *id), log);
}

}  // namespace kdrift
