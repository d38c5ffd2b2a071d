#include "boot/kexec.h"

#include <fcntl.h>
#include <linux/kexec.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "collect/facts.h"
#include "collect/kernel_config.h"
#include "util/process.h"
#include "util/text.h"

namespace kdrift {
namespace {

constexpr std::string_view kLoadDisabled = "/proc/sys/kernel/kexec_load_disabled";
constexpr std::string_view kLockdown = "/sys/kernel/security/lockdown";
constexpr std::string_view kSecurityFs = "/sys/kernel/security";
constexpr std::string_view kSecureBoot =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e39d1c1a0a2b";
// An efivarfs file: a 4-byte attribute word, then the variable's value.
constexpr size_t kEfiAttributeBytes = 4;
constexpr std::string_view kLockdownFix =
    "boot without lockdown (no lockdown= parameter, and Secure Boot off where the distribution "
    "locks down under it)";

// The running kernel's config symbols, or why none could be read.
struct RunningConfig {
  Json symbols;                      // null when unknown
  std::vector<std::string> reasons;  // why unknown, one per source tried
  bool known() const { return symbols.is_object(); }
  bool enabled(const char* name) const {
    return known() && symbols.contains(name) && symbols.at(name) == "y";
  }
};

RunningConfig running_config(const SysRoot& root) {
  const std::string release = root.read_value("/proc/sys/kernel/osrelease").value_or("");
  Json config = collect_kernel_config(root, release);
  RunningConfig running;
  if (config.contains("symbols")) {
    running.symbols = std::move(config.at("symbols"));
  } else if (const std::string unavailable(kUnavailableKey); config.contains(unavailable)) {
    for (const auto& [source, reason] : config.at(unavailable).items()) {
      running.reasons.push_back(reason.is_string() ? reason.get<std::string>() : source);
    }
  }
  return running;
}

// What stops one of the two load calls. A blocked call only matters when the other is blocked
// too: then each reason is a problem; otherwise a note says which call will be used.
struct Blockers {
  std::vector<std::string> file;
  std::vector<std::string> legacy;
};

void check_config(const RunningConfig& config, KexecPreflight& preflight, Blockers& blockers) {
  if (!config.known()) {
    preflight.notes.push_back(
        "The running kernel's configuration could not be read (" + join(config.reasons, "; ") +
        "): whether it has CONFIG_KEXEC_FILE or CONFIG_KEXEC cannot be told, so kexec itself "
        "will say when it loads the first candidate.");
    return;
  }
  if (!config.enabled("CONFIG_KEXEC_FILE")) {
    blockers.file.emplace_back(
        "kexec_file_load cannot be used: the running kernel was built without "
        "CONFIG_KEXEC_FILE; boot a kernel built with CONFIG_KEXEC_FILE=y");
  }
  if (!config.enabled("CONFIG_KEXEC")) {
    blockers.legacy.emplace_back(
        "the legacy kexec_load cannot be used: the running kernel was built without "
        "CONFIG_KEXEC; boot a kernel built with CONFIG_KEXEC=y");
  }
}

// The content of path, or nullopt: then a note says what cannot be told, unless the file is
// simply absent (absent set), whose meaning only the caller knows.
std::optional<std::string> read_state(const SysRoot& root, std::string_view path,
                                      std::string_view unknown, KexecPreflight& preflight,
                                      bool& absent) {
  auto text = root.read(path);
  absent = !text && text.error().code == ENOENT;
  if (text) return std::move(*text);
  if (!absent) {
    preflight.notes.push_back("Cannot read " + text.error().describe() + ": " +
                              std::string(unknown) + " cannot be told.");
  }
  return std::nullopt;
}

// true when kexec_load_disabled forbids every load.
bool check_load_disabled(const SysRoot& root, KexecPreflight& preflight) {
  // Absent on kernels without kexec at all, which the config check names when it can.
  bool absent = false;
  const auto text =
      read_state(root, kLoadDisabled, "whether kexec loads were disabled", preflight, absent);
  if (!text) return false;
  const std::string_view value = trim(*text);
  if (value == "0") return false;
  if (value == "1") {
    preflight.problems.push_back(
        std::string(kLoadDisabled) +
        " is 1: this kernel refuses every kexec load until it reboots; boot without "
        "kernel.kexec_load_disabled=1 (sysctl.d or the kernel command line).");
    return true;
  }
  preflight.notes.push_back(std::string(kLoadDisabled) + " reads " + quote_value(value) +
                            ", neither 0 nor 1: whether kexec loads are disabled cannot be told.");
  return false;
}

bool security_fs_mounted(const SysRoot& root) {
  const auto entries = root.list(kSecurityFs);
  return entries && !entries->empty();
}

void check_lockdown(const SysRoot& root, const RunningConfig& config, KexecPreflight& preflight,
                    Blockers& blockers) {
  bool absent = false;
  const auto text =
      read_state(root, kLockdown, "whether lockdown forbids kexec", preflight, absent);
  if (!text) {
    // securityfs mounted without the lockdown LSM means nothing is locked down.
    if (absent && !security_fs_mounted(root)) {
      preflight.notes.push_back(std::string(kSecurityFs) +
                                " is not mounted (securityfs): whether lockdown forbids kexec "
                                "cannot be told.");
    }
    return;
  }
  const auto choice = parse_bracketed_choice(trim(*text));
  if (!choice) {
    preflight.notes.push_back(std::string(kLockdown) + " reads " + quote_value(trim(*text)) +
                              ", with no single [mode] in force: whether lockdown forbids kexec "
                              "cannot be told.");
    return;
  }
  const std::string& mode = choice->active;
  if (mode == "none") return;
  if (mode != "integrity" && mode != "confidentiality") {
    preflight.notes.push_back(std::string(kLockdown) + " names an unknown mode " +
                              quote_value(mode) + ": its effect on kexec cannot be told.");
    return;
  }
  blockers.legacy.push_back("the legacy kexec_load cannot be used: the kernel is locked down (" +
                            mode + "); " + std::string(kLockdownFix));
  // Before 5.4 the signature check was CONFIG_KEXEC_VERIFY_SIG.
  preflight.signatures_required_by = "the kernel is locked down (" + mode + ")";
  if (config.enabled("CONFIG_KEXEC_SIG") || config.enabled("CONFIG_KEXEC_VERIFY_SIG")) {
    preflight.notes.push_back("The kernel is locked down (" + mode +
                              "): kexec_file_load accepts only kernel images signed with a key "
                              "this kernel trusts, so self-built candidates must be signed "
                              "(sbsign), or " +
                              std::string(kLockdownFix) + ".");
  } else if (config.known()) {
    blockers.file.push_back("kexec_file_load cannot be used: the kernel is locked down (" + mode +
                            ") and was built without CONFIG_KEXEC_SIG, so it cannot verify any "
                            "image and refuses them all; " +
                            std::string(kLockdownFix));
  } else {
    preflight.notes.push_back("The kernel is locked down (" + mode +
                              "): kexec_file_load will accept only signed kernel images, if this "
                              "kernel can check signatures at all (its config is unknown).");
  }
}

void check_secure_boot(const SysRoot& root, KexecPreflight& preflight) {
  // Absent: not booted through EFI, or efivarfs not mounted; lockdown speaks for itself.
  bool absent = false;
  const auto variable =
      read_state(root, kSecureBoot, "whether Secure Boot is on", preflight, absent);
  if (!variable) return;
  const std::string path(kSecureBoot);
  if (variable->size() <= kEfiAttributeBytes) {
    preflight.notes.push_back(path + " holds " + std::to_string(variable->size()) +
                              " bytes, not the 4 attribute bytes and a value: whether Secure Boot "
                              "is on cannot be told.");
    return;
  }
  const auto value = static_cast<unsigned char>((*variable)[kEfiAttributeBytes]);
  if (value == 0) return;
  if (value == 1) {
    preflight.notes.push_back("Secure Boot is on (" + path +
                              "): the kernel will want candidate images signed with a key it "
                              "trusts; sign self-built kernels (sbsign) or turn Secure Boot off.");
    return;
  }
  preflight.notes.push_back(path + " holds the value " + std::to_string(value) +
                            ", neither 0 nor 1: whether Secure Boot is on cannot be told.");
}

void judge_calls(const Blockers& blockers, KexecPreflight& preflight) {
  preflight.file_load_possible = blockers.file.empty();
  preflight.legacy_load_possible = blockers.legacy.empty();
  if (!preflight.file_load_possible && !preflight.legacy_load_possible) {
    for (const auto& reason : blockers.file)
      preflight.problems.push_back(reason + ".");
    for (const auto& reason : blockers.legacy)
      preflight.problems.push_back(reason + ".");
    return;
  }
  for (const auto& reason : blockers.file) {
    preflight.notes.push_back(reason + "; the legacy kexec_load will be used.");
  }
  for (const auto& reason : blockers.legacy) {
    preflight.notes.push_back(reason + "; kexec_file_load will be used.");
  }
}

std::string last_line(std::string_view output) {
  const auto lines = split_lines(trim(output));
  return lines.empty() ? std::string("no output") : lines.back();
}

// Every line kdrift writes to the log: paths and command lines come from a candidate list, and
// kexec-tools echoes them.
void log_line(std::ostream& log, std::string_view line) {
  log << terminal_safe(line) << "\n";
}

void log_output(const ProcessResult& ran, std::ostream& log) {
  for (const std::string& line : split_lines(ran.output))
    log_line(log, line);
  log << "  exit status " << ran.exit_status << "\n";
}

std::string proc_fd(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

std::string describe_file_load(const BootImage& image, const KexecFiles& files) {
  std::string text = "kexec_file_load: kernel " + image.kernel + " (fd " +
                     std::to_string(files.kernel.get()) + ")";
  if (files.initrd) {
    text += ", initrd " + image.initrd + " (fd " + std::to_string(files.initrd.get()) + ")";
  }
  return text + ", command line " + shell_quoted({image.command_line});
}

// kexec-tools reads the checked descriptors through /proc/self/fd, so they stay open across its
// exec for as long as this lives, and close-on-exec again afterwards.
class InheritedAcrossExec {
 public:
  explicit InheritedAcrossExec(const KexecFiles& files) {
    for (const UniqueFd* file : {&files.kernel, &files.initrd}) {
      if (*file && ::fcntl(file->get(), F_SETFD, 0) == 0) fds_.push_back(file->get());
    }
  }
  InheritedAcrossExec(const InheritedAcrossExec&) = delete;
  InheritedAcrossExec& operator=(const InheritedAcrossExec&) = delete;
  ~InheritedAcrossExec() {
    for (const int fd : fds_)
      ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }

 private:
  std::vector<int> fds_;
};

int initrd_fd(const KexecFiles& files) {
  return files.initrd ? files.initrd.get() : -1;
}

std::vector<std::string> legacy_load_command(const std::string& kexec_path, const BootImage& image,
                                             const KexecFiles& files) {
  return kexec_load_command(kexec_path, files.kernel.get(), initrd_fd(files), image.command_line);
}

// Loads with the first call that works, in the preflight's order; the error says why each failed.
Status load(const KexecPreflight& preflight, const BootImage& image, const KexecFiles& files,
            std::ostream& log, const FileLoadCall& file_load) {
  std::vector<std::string> failures;
  if (preflight.file_load_possible) {
    log_line(log, "kexec: loading with " + describe_file_load(image, files));
    const int code = file_load(files.kernel.get(), initrd_fd(files), image.command_line);
    if (code == 0) {
      log_line(log, "kexec: loaded with kexec_file_load");
      return ok_status();
    }
    failures.push_back(std::string("kexec_file_load failed: ") + std::strerror(code));
    log_line(log, "kexec: " + failures.back());
  }
  if (preflight.legacy_load_possible) {
    const auto command = legacy_load_command(preflight.kexec_path, image, files);
    log_line(log, "kexec: loading with kexec_load: " + shell_quoted(command));
    ProcessOptions capture;
    capture.capture_output = true;
    const InheritedAcrossExec inherited(files);
    auto ran = run_process(command, capture);
    if (!ran) return ran.error();
    log_output(*ran, log);
    if (ran->exit_status == 0) return ok_status();
    failures.push_back("kexec_load exited " + std::to_string(ran->exit_status) + " (" +
                       last_line(ran->output) + ")");
  }
  return content_error("kexec could not load " + image.kernel + ": " + join(failures, "; "));
}

}  // namespace

KexecPreflight kexec_preflight(const SysRoot& root, const std::string& search_path) {
  KexecPreflight preflight;
  const RunningConfig config = running_config(root);
  Blockers blockers;
  check_config(config, preflight, blockers);
  const bool disabled = check_load_disabled(root, preflight);
  check_lockdown(root, config, preflight, blockers);
  check_secure_boot(root, preflight);
  if (disabled) {
    // Already the one problem that matters; listing each call's blockers would only bury it.
    preflight.file_load_possible = preflight.legacy_load_possible = false;
  } else {
    judge_calls(blockers, preflight);
  }
  if (auto found = find_program("kexec", search_path)) {
    preflight.kexec_path = std::move(*found);
  } else {
    preflight.problems.push_back("kexec was not found on " + quote_value(search_path) +
                                 ": install kexec-tools.");
  }
  return preflight;
}

void require_signed_images(KexecPreflight& preflight, const SysRoot& root,
                           const std::vector<BootImage>& images, bool images_built_unsigned) {
  if (preflight.signatures_required_by.empty() || !preflight.ok()) return;
  const std::string refusal = preflight.signatures_required_by +
                              ", so kexec_file_load refuses an image without a signature this "
                              "kernel trusts; sign it (sbsign) or boot the candidates by reboot "
                              "(--mode reboot)";
  if (images_built_unsigned) {
    preflight.problems.push_back("kdrift builds the candidates unsigned and " + refusal + ".");
    return;
  }
  for (const BootImage& image : images) {
    const auto head = root.read_head(image.kernel, kPeHeadBytes);
    if (head && !pe_image_signed(*head)) {
      preflight.problems.push_back("candidate " + image.label + ": " + image.kernel +
                                   " carries no signature and " + refusal + ".");
    }
  }
}

bool systemd_is_pid1(const SysRoot& root) {
  const auto kind = root.kind("/run/systemd/system");
  return kind && *kind == EntryKind::kDirectory;
}

std::vector<std::string> kexec_load_command(const std::string& kexec_path, int kernel_fd,
                                            int initrd_fd, const std::string& command_line) {
  std::vector<std::string> argv = {kexec_path, "-l", proc_fd(kernel_fd)};
  if (initrd_fd >= 0) argv.push_back("--initrd=" + proc_fd(initrd_fd));
  // Always given, even empty: without it kexec-tools boots with no command line at all, which is
  // no less surprising, and the journal then shows what was asked.
  argv.push_back("--command-line=" + command_line);
  return argv;
}

std::vector<std::string> kexec_exec_command(const std::string& kexec_path, bool systemd_is_pid1) {
  if (systemd_is_pid1) return {"systemctl", "kexec"};
  return {kexec_path, "-e"};
}

int kexec_file_load_call(int kernel_fd, int initrd_fd, const std::string& command_line) {
#ifdef SYS_kexec_file_load
  const unsigned long flags = initrd_fd < 0 ? KEXEC_FILE_NO_INITRAMFS : 0;
  // The length counts the terminating NUL, which the kernel checks for.
  if (::syscall(SYS_kexec_file_load, kernel_fd, initrd_fd, command_line.size() + 1,
                command_line.c_str(), flags) == 0) {
    return 0;
  }
  return errno;
#else
  (void)kernel_fd;
  (void)initrd_fd;
  (void)command_line;
  return ENOSYS;
#endif
}

Status kexec_into(const KexecPreflight& preflight, const BootImage& image, const KexecFiles& files,
                  bool systemd, bool dry_run, std::ostream& log, const FileLoadCall& file_load) {
  if (!preflight.ok()) {
    return content_error("kexec refused: " + join(preflight.problems, " "));
  }
  if (!preflight.file_load_possible && !preflight.legacy_load_possible) {
    return content_error("kexec refused: neither load call is possible");
  }
  const auto exec = kexec_exec_command(preflight.kexec_path, systemd);
  if (dry_run) {
    if (preflight.file_load_possible) log_line(log, describe_file_load(image, files));
    if (preflight.legacy_load_possible) {
      log_line(log, std::string(preflight.file_load_possible ? "# if that fails: " : "") +
                        shell_quoted(legacy_load_command(preflight.kexec_path, image, files)));
    }
    log_line(log, shell_quoted(exec));
    return ok_status();
  }
  if (auto loaded = load(preflight, image, files, log, file_load); !loaded) return loaded;

  // kexec -e jumps without unmounting anything: what is written must be on disk first.
  ::sync();
  log_line(log, "kexec: booting " + image.kernel + ": " + shell_quoted(exec));
  log.flush();
  ProcessOptions capture;
  capture.capture_output = true;
  auto ran = run_process(exec, capture);
  if (!ran) return ran.error();
  log_output(*ran, log);
  if (systemd && ran->exit_status == 0) {
    log_line(log, "kexec: systemd is shutting down into " + image.kernel);
    return ok_status();
  }
  return content_error(shell_quoted(exec) + " returned (exit status " +
                       std::to_string(ran->exit_status) + ", " + last_line(ran->output) +
                       ") instead of booting " + image.kernel + ": still on the old kernel");
}

}  // namespace kdrift
