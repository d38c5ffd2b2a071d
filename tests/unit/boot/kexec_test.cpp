#include "boot/kexec.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "support/fixtures.h"
#include "support/pe_image.h"
#include "util/text.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr const char* kRelease = "6.1.0-test";
constexpr const char* kSecureBootVar =
    "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e39d1c1a0a2b";
constexpr const char* kBothCalls = "CONFIG_KEXEC=y\nCONFIG_KEXEC_FILE=y\n";

bool mentions(const std::vector<std::string>& sentences, std::string_view word) {
  for (const auto& sentence : sentences) {
    if (sentence.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string all_of(const std::vector<std::string>& sentences) {
  return join(sentences, "\n");
}

void make_executable(const TempDir& dir, const std::string& relative, const std::string& text) {
  dir.write(relative, text);
  ASSERT_EQ(::chmod((dir.path() + "/" + relative).c_str(), 0755), 0);
}

// A sysroot with everything kexec wants: both calls configured, loads enabled, no lockdown,
// Secure Boot off; and a kexec on the search path. Each test spoils one thing.
class HostTree {
 public:
  HostTree() {
    root_.write("proc/sys/kernel/osrelease", std::string(kRelease) + "\n");
    config(kBothCalls);
    root_.write("proc/sys/kernel/kexec_load_disabled", "0\n");
    root_.write("sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
    secure_boot(std::string("\x06\0\0\0\0", 5));
    make_executable(bin_, "kexec", "#!/bin/sh\nexit 0\n");
  }
  void config(const std::string& text) const {
    root_.write(std::string("boot/config-") + kRelease, "# Linux kernel config\n" + text);
  }
  void secure_boot(const std::string& bytes) const { root_.write(kSecureBootVar, bytes); }
  void remove(const std::string& relative) const {
    EXPECT_EQ(std::remove((root_.path() + "/" + relative).c_str()), 0) << relative;
  }
  const TempDir& root() const { return root_; }
  std::string search_path() const { return "/nonexistent-dir:" + bin_.path(); }
  KexecPreflight preflight() const { return kexec_preflight(SysRoot(root_.path()), search_path()); }

 private:
  TempDir root_;
  TempDir bin_;
};

TEST(KexecPreflight, AnOpenHostCanUseBothCalls) {
  const HostTree host;
  const KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(preflight.ok()) << all_of(preflight.problems);
  EXPECT_TRUE(preflight.notes.empty()) << all_of(preflight.notes);
  EXPECT_TRUE(preflight.file_load_possible);
  EXPECT_TRUE(preflight.legacy_load_possible);
  EXPECT_NE(preflight.kexec_path.find("/kexec"), std::string::npos);
  EXPECT_EQ(preflight.kexec_path.substr(0, 1), "/");
}

TEST(KexecPreflight, AKernelWithoutKexecIsAProblemPerCall) {
  const HostTree host;
  host.config("# CONFIG_KEXEC is not set\n# CONFIG_KEXEC_FILE is not set\n");
  const KexecPreflight preflight = host.preflight();
  EXPECT_FALSE(preflight.ok());
  ASSERT_EQ(preflight.problems.size(), 2u) << all_of(preflight.problems);
  EXPECT_TRUE(mentions(preflight.problems, "CONFIG_KEXEC_FILE=y"));
  EXPECT_TRUE(mentions(preflight.problems, "CONFIG_KEXEC=y"));
  EXPECT_FALSE(preflight.file_load_possible);
  EXPECT_FALSE(preflight.legacy_load_possible);
}

TEST(KexecPreflight, OneCallMissingIsANoteNamingTheOther) {
  const HostTree host;
  host.config("CONFIG_KEXEC_FILE=y\n# CONFIG_KEXEC is not set\n");
  KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(preflight.ok()) << all_of(preflight.problems);
  EXPECT_TRUE(preflight.file_load_possible);
  EXPECT_FALSE(preflight.legacy_load_possible);
  ASSERT_EQ(preflight.notes.size(), 1u);
  EXPECT_TRUE(mentions(preflight.notes, "kexec_file_load will be used"));

  host.config("CONFIG_KEXEC=y\n");
  preflight = host.preflight();
  EXPECT_TRUE(preflight.ok());
  EXPECT_FALSE(preflight.file_load_possible);
  EXPECT_TRUE(preflight.legacy_load_possible);
  EXPECT_TRUE(mentions(preflight.notes, "the legacy kexec_load will be used"));
}

TEST(KexecPreflight, AnUnreadableConfigIsANoteNotAProblem) {
  const HostTree host;
  host.remove(std::string("boot/config-") + kRelease);
  const KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(preflight.ok()) << all_of(preflight.problems);
  EXPECT_TRUE(preflight.file_load_possible);
  EXPECT_TRUE(preflight.legacy_load_possible);
  // The note says why, from the collector's own reasons.
  EXPECT_TRUE(mentions(preflight.notes, std::string("/boot/config-") + kRelease));
  EXPECT_TRUE(mentions(preflight.notes, "cannot be told"));
}

TEST(KexecPreflight, ReadsTheCompressedConfigToo) {
  const HostTree host;
  host.remove(std::string("boot/config-") + kRelease);
  // /proc/config.gz is the collector's first choice; a corrupt one falls back to /boot, which is
  // gone here, so the config is unknown: the preflight goes through the collector's reader.
  host.root().write("proc/config.gz", "not gzip");
  EXPECT_TRUE(mentions(host.preflight().notes, "/proc/config.gz"));
}

TEST(KexecPreflight, LoadDisabledBlocksEverythingWithOneProblem) {
  const HostTree host;
  host.root().write("proc/sys/kernel/kexec_load_disabled", "1\n");
  const KexecPreflight preflight = host.preflight();
  ASSERT_EQ(preflight.problems.size(), 1u) << all_of(preflight.problems);
  EXPECT_TRUE(mentions(preflight.problems, "kexec_load_disabled is 1"));
  EXPECT_FALSE(preflight.file_load_possible);
  EXPECT_FALSE(preflight.legacy_load_possible);
}

TEST(KexecPreflight, AnOddLoadDisabledValueIsANote) {
  const HostTree host;
  host.root().write("proc/sys/kernel/kexec_load_disabled", "yes\n");
  const KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(preflight.ok());
  EXPECT_TRUE(mentions(preflight.notes, "/proc/sys/kernel/kexec_load_disabled reads \"yes\""));
}

// With signature checking, or when the config cannot tell, kexec_file_load stays: for signed
// images only, which a note says.
TEST(KexecPreflight, LockdownLeavesTheFileCallForSignedImages) {
  for (const bool config_known : {true, false}) {
    SCOPED_TRACE(config_known ? "CONFIG_KEXEC_SIG=y" : "config unknown");
    const HostTree host;
    if (config_known) {
      host.config(std::string(kBothCalls) + "CONFIG_KEXEC_SIG=y\n");
    } else {
      host.remove(std::string("boot/config-") + kRelease);
    }
    host.root().write("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
    const KexecPreflight preflight = host.preflight();
    EXPECT_TRUE(preflight.ok()) << all_of(preflight.problems);
    EXPECT_TRUE(preflight.file_load_possible);
    EXPECT_FALSE(preflight.legacy_load_possible);
    EXPECT_TRUE(mentions(preflight.notes, "signed"));
    EXPECT_TRUE(mentions(preflight.notes, "locked down (integrity)"));
  }
}

TEST(KexecPreflight, LockdownWithoutSignatureCheckingBlocksBothCalls) {
  const HostTree host;
  host.root().write("sys/kernel/security/lockdown", "none integrity [confidentiality]\n");
  const KexecPreflight preflight = host.preflight();
  EXPECT_FALSE(preflight.ok());
  ASSERT_EQ(preflight.problems.size(), 2u) << all_of(preflight.problems);
  EXPECT_TRUE(mentions(preflight.problems, "without CONFIG_KEXEC_SIG"));
  EXPECT_TRUE(mentions(preflight.problems, "legacy kexec_load"));
  EXPECT_TRUE(mentions(preflight.problems, "locked down (confidentiality)"));
}

TEST(KexecPreflight, OddLockdownTextIsANoteNamingTheFile) {
  const HostTree host;
  host.root().write("sys/kernel/security/lockdown", "none integrity confidentiality\n");
  KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(preflight.ok());
  EXPECT_TRUE(preflight.legacy_load_possible);
  EXPECT_TRUE(mentions(preflight.notes, "/sys/kernel/security/lockdown reads"));

  host.root().write("sys/kernel/security/lockdown", "none [paranoid]\n");
  preflight = host.preflight();
  EXPECT_TRUE(preflight.ok());
  EXPECT_TRUE(mentions(preflight.notes, "unknown mode \"paranoid\""));
}

TEST(KexecPreflight, NoLockdownFileIsSilentOnlyWhenSecurityfsIsMounted) {
  const HostTree host;
  host.remove("sys/kernel/security/lockdown");
  KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(mentions(preflight.notes, "securityfs")) << all_of(preflight.notes);

  host.root().write("sys/kernel/security/lsm", "capability,apparmor\n");
  preflight = host.preflight();
  EXPECT_TRUE(preflight.notes.empty()) << all_of(preflight.notes);
  EXPECT_TRUE(preflight.legacy_load_possible);
}

TEST(KexecPreflight, SecureBootOnAsksForSignedImages) {
  const HostTree host;
  host.secure_boot(std::string("\x06\0\0\0\x01", 5));
  const KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(preflight.ok());
  ASSERT_EQ(preflight.notes.size(), 1u) << all_of(preflight.notes);
  EXPECT_TRUE(mentions(preflight.notes, "Secure Boot is on"));
  EXPECT_TRUE(mentions(preflight.notes, "signed"));
}

TEST(KexecPreflight, OddSecureBootVariablesAreNotesNamingTheFile) {
  const HostTree host;
  host.secure_boot(std::string("\x06\0", 2));
  KexecPreflight preflight = host.preflight();
  EXPECT_TRUE(preflight.ok());
  EXPECT_TRUE(mentions(preflight.notes, "SecureBoot-8be4df61-93ca-11d2-aa0d-e39d1c1a0a2b holds 2"));

  host.secure_boot(std::string("\x06\0\0\0\x07", 5));
  preflight = host.preflight();
  EXPECT_TRUE(mentions(preflight.notes, "holds the value 7"));

  host.remove(kSecureBootVar);
  EXPECT_TRUE(host.preflight().notes.empty());  // not an EFI boot: nothing to say
}

TEST(KexecPreflight, MissingKexecIsAProblemSayingWhatToInstall) {
  const HostTree host;
  const TempDir empty;
  const KexecPreflight preflight = kexec_preflight(SysRoot(host.root().path()), empty.path());
  ASSERT_EQ(preflight.problems.size(), 1u);
  EXPECT_TRUE(mentions(preflight.problems, "kexec-tools"));
  EXPECT_TRUE(mentions(preflight.problems, empty.path()));
  EXPECT_TRUE(preflight.kexec_path.empty());
}

// A locked-down host with signature checking: kexec_file_load is the one call left.
KexecPreflight locked_down_preflight(const HostTree& host) {
  host.config(std::string(kBothCalls) + "CONFIG_KEXEC_SIG=y\n");
  host.root().write("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  return host.preflight();
}

TEST(RequireSignedImages, UnderLockdownEachUnsignedCandidateIsAProblem) {
  const HostTree host;
  const TempDir images;
  images.write("vmlinuz-signed", testing::pe_kernel_image(1424));
  images.write("vmlinuz-unsigned", testing::pe_kernel_image(0));
  KexecPreflight preflight = locked_down_preflight(host);
  ASSERT_TRUE(preflight.ok()) << all_of(preflight.problems);
  require_signed_images(preflight, SysRoot(images.path()),
                        {{"/vmlinuz-signed", "", "", "6.1-signed"},
                         {"/vmlinuz-unsigned", "", "", "6.12-unsigned"},
                         {"/absent", "", "", "6.13-absent"}},
                        false);
  ASSERT_EQ(preflight.problems.size(), 1u) << all_of(preflight.problems);
  EXPECT_TRUE(mentions(preflight.problems, "candidate 6.12-unsigned"));
  EXPECT_TRUE(mentions(preflight.problems, "carries no signature"));
  EXPECT_TRUE(mentions(preflight.problems, "locked down (integrity)"));
  EXPECT_TRUE(mentions(preflight.problems, "--mode reboot"));
}

TEST(RequireSignedImages, KernelsKdriftBuildsAreUnsigned) {
  const HostTree host;
  KexecPreflight preflight = locked_down_preflight(host);
  require_signed_images(preflight, SysRoot(host.root().path()), {}, true);
  ASSERT_EQ(preflight.problems.size(), 1u);
  EXPECT_TRUE(mentions(preflight.problems, "builds the candidates unsigned"));
}

TEST(RequireSignedImages, WithoutLockdownAnyImageLoads) {
  const HostTree host;
  const TempDir images;
  images.write("vmlinuz", testing::pe_kernel_image(0));
  KexecPreflight preflight = host.preflight();
  require_signed_images(preflight, SysRoot(images.path()), {{"/vmlinuz", "", "", "unsigned"}},
                        true);
  EXPECT_TRUE(preflight.ok()) << all_of(preflight.problems);
}

TEST(SystemdIsPid1, LooksForTheRunDirectory) {
  const TempDir root;
  EXPECT_FALSE(systemd_is_pid1(SysRoot(root.path())));
  root.write("run/systemd/system", "a file, not the directory");
  EXPECT_FALSE(systemd_is_pid1(SysRoot(root.path())));
  const TempDir booted;
  booted.mkdir("run/systemd/system");
  EXPECT_TRUE(systemd_is_pid1(SysRoot(booted.path())));
}

TEST(KexecCommands, TheLegacyLoadReadsTheInheritedDescriptorsAndTheCommandLineStaysOneWord) {
  EXPECT_EQ(kexec_load_command("/usr/sbin/kexec", 5, 6,
                               "root=/dev/vda1 quiet dyndbg=\"file x.c +p\" note='it''s'"),
            (std::vector<std::string>{
                "/usr/sbin/kexec", "-l", "/proc/self/fd/5", "--initrd=/proc/self/fd/6",
                "--command-line=root=/dev/vda1 quiet dyndbg=\"file x.c +p\" note='it''s'"}));
  EXPECT_EQ(kexec_load_command("/sbin/kexec", 3, -1, ""),
            (std::vector<std::string>{"/sbin/kexec", "-l", "/proc/self/fd/3", "--command-line="}));
}

TEST(KexecCommands, SystemdShutsDownFirst) {
  EXPECT_EQ(kexec_exec_command("/sbin/kexec", true),
            (std::vector<std::string>{"systemctl", "kexec"}));
  EXPECT_EQ(kexec_exec_command("/sbin/kexec", false),
            (std::vector<std::string>{"/sbin/kexec", "-e"}));
}

// A kexec that records each call's words as "[w1][w2]..." lines and does what it is told: a
// legacy load reads the kernel through the path it was given (the inherited descriptor) and
// exits load_exit; exec always returns 0, as if the jump had not happened. kexec_file_load is
// a function that records what it read from the descriptors and returns file_load_errno.
class FakeKexec {
 public:
  explicit FakeKexec(int file_load_errno = EPERM, int load_exit = 0)
      : file_load_errno_(file_load_errno) {
    dir_.write("vmlinuz", "kernel");
    dir_.write("initrd.img", "initrd");
    make_executable(dir_, "bin/kexec",
                    "#!/bin/sh\n"
                    "for word in \"$@\"; do printf '[%s]' \"$word\"; done >> '" +
                        calls_path() +
                        "'\n"
                        "echo >> '" +
                        calls_path() +
                        "'\n"
                        "case \"$1\" in\n"
                        "  -l) echo \"fake kexec_load read $(cat \"$2\")\"; exit " +
                        std::to_string(load_exit) +
                        ";;\n"
                        "  -e) echo \"fake exec came back\"; exit 0;;\n"
                        "esac\n"
                        "exit 99\n");
  }
  std::string path() const { return dir_.path() + "/bin/kexec"; }
  std::string bin() const { return dir_.path() + "/bin"; }
  BootImage image(const std::string& command_line = "root=/dev/vda1 x=\"a b\"") const {
    return {dir_.path() + "/vmlinuz", dir_.path() + "/initrd.img", command_line, "c1"};
  }
  KexecFiles files(const BootImage& image) const {
    auto opened = open_kexec_files(image.kernel, image.initrd);
    EXPECT_TRUE(opened) << opened.error().describe();
    return opened ? std::move(*opened) : KexecFiles{};
  }
  KexecPreflight preflight(bool file, bool legacy) const {
    KexecPreflight preflight;
    preflight.kexec_path = path();
    preflight.file_load_possible = file;
    preflight.legacy_load_possible = legacy;
    return preflight;
  }
  // kexec_into with this machine's kexec_file_load.
  Status into(const KexecPreflight& preflight, const BootImage& image, bool systemd, bool dry_run,
              std::ostream& log) {
    return kexec_into(
        preflight, image, files(image), systemd, dry_run, log,
        [this](int kernel, int initrd, const std::string& line) {
          file_loads_.push_back(contents(kernel) + "|" + contents(initrd) + "|" + line);
          return file_load_errno_;
        });
  }
  std::vector<std::string> calls() const {
    std::ifstream in(calls_path());
    std::stringstream text;
    text << in.rdbuf();
    return split_lines(text.str());
  }
  const std::vector<std::string>& file_loads() const { return file_loads_; }
  const TempDir& dir() const { return dir_; }

 private:
  static std::string contents(int fd) {
    if (fd < 0) return "none";
    std::string buffer(64, '\0');
    const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), 0);
    return buffer.substr(0, got > 0 ? static_cast<size_t>(got) : 0);
  }
  std::string calls_path() const { return dir_.path() + "/calls"; }
  TempDir dir_;
  int file_load_errno_;
  std::vector<std::string> file_loads_;
};

TEST(KexecInto, FallsBackToTheLegacyCallAndReportsAnExecThatReturned) {
  FakeKexec kexec;
  std::ostringstream log;
  const BootImage image = kexec.image();
  const Status status = kexec.into(kexec.preflight(true, true), image, false, false, log);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().context.find("returned"), std::string::npos)
      << status.error().describe();
  EXPECT_NE(status.error().context.find("still on the old kernel"), std::string::npos);
  EXPECT_EQ(kexec.file_loads(),
            (std::vector<std::string>{"kernel|initrd|root=/dev/vda1 x=\"a b\""}));
  const auto calls = kexec.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[0].starts_with("[-l][/proc/self/fd/")) << calls[0];
  EXPECT_NE(calls[0].find("][--initrd=/proc/self/fd/"), std::string::npos) << calls[0];
  EXPECT_TRUE(calls[0].ends_with("][--command-line=root=/dev/vda1 x=\"a b\"]")) << calls[0];
  EXPECT_EQ(calls[1], "[-e]");
  // Why the file load failed, and what kexec-tools read through the inherited descriptor.
  EXPECT_NE(log.str().find("kexec_file_load failed: Operation not permitted"), std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("fake kexec_load read kernel"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("fake exec came back"), std::string::npos);
}

TEST(KexecInto, TheFileLoadGetsTheCheckedDescriptorsAndNoInitrdIsNone) {
  FakeKexec kexec(0, 0);
  std::ostringstream log;
  BootImage image = kexec.image("quiet");
  image.initrd.clear();
  EXPECT_FALSE(kexec.into(kexec.preflight(true, true), image, false, false, log));
  EXPECT_EQ(kexec.file_loads(), (std::vector<std::string>{"kernel|none|quiet"}));
  EXPECT_EQ(kexec.calls(), (std::vector<std::string>{"[-e]"}));
  EXPECT_NE(log.str().find("loaded with kexec_file_load"), std::string::npos) << log.str();
}

TEST(KexecInto, ALoadThatFailsBothWaysIsAnErrorAndNothingIsExecuted) {
  FakeKexec kexec(ENOEXEC, 2);
  std::ostringstream log;
  const Status status = kexec.into(kexec.preflight(true, true), kexec.image(), false, false, log);
  ASSERT_FALSE(status);
  const std::string why = status.error().context;
  EXPECT_NE(why.find("could not load"), std::string::npos) << why;
  EXPECT_NE(why.find("kexec_file_load failed: Exec format error"), std::string::npos) << why;
  EXPECT_NE(why.find("kexec_load exited 2 (fake kexec_load read kernel)"), std::string::npos)
      << why;
  EXPECT_EQ(kexec.calls().size(), 1u);
}

TEST(KexecInto, UsesOnlyTheCallsThePreflightAllows) {
  FakeKexec kexec(0, 0);
  std::ostringstream log;
  EXPECT_FALSE(kexec.into(kexec.preflight(false, true), kexec.image(), false, false, log));
  EXPECT_TRUE(kexec.file_loads().empty());
  ASSERT_EQ(kexec.calls().size(), 2u);
  EXPECT_EQ(kexec.calls()[0].substr(0, 4), "[-l]");
  EXPECT_EQ(kexec.calls()[1], "[-e]");

  FakeKexec file_only(EPERM, 0);
  EXPECT_FALSE(
      file_only.into(file_only.preflight(true, false), file_only.image(), false, false, log));
  EXPECT_EQ(file_only.file_loads().size(), 1u);
  EXPECT_TRUE(file_only.calls().empty());
}

TEST(KexecInto, RefusesWhatThePreflightRefused) {
  FakeKexec kexec;
  KexecPreflight preflight = kexec.preflight(true, true);
  preflight.problems.push_back("kexec was not found: install kexec-tools.");
  std::ostringstream log;
  const Status status = kexec.into(preflight, kexec.image(), false, true, log);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().context.find("install kexec-tools"), std::string::npos);
  EXPECT_TRUE(kexec.calls().empty());
  EXPECT_TRUE(kexec.file_loads().empty());
  EXPECT_TRUE(log.str().empty());
}

TEST(KexecInto, DryRunPrintsWhatItWouldLoadInertAndRunsNothing) {
  FakeKexec kexec;
  std::ostringstream log;
  const BootImage image = kexec.image("root=/dev/vda1 note='x y' \x1b]0;pwned\x07");
  ASSERT_TRUE(kexec.into(kexec.preflight(true, true), image, true, true, log));
  EXPECT_TRUE(kexec.calls().empty());
  EXPECT_TRUE(kexec.file_loads().empty());
  const auto lines = split_lines(log.str());
  ASSERT_EQ(lines.size(), 3u) << log.str();
  EXPECT_TRUE(lines[0].starts_with("kexec_file_load: kernel " + image.kernel + " (fd "))
      << lines[0];
  EXPECT_NE(lines[0].find(", initrd " + image.initrd + " (fd "), std::string::npos) << lines[0];
  EXPECT_TRUE(
      lines[0].ends_with(", command line 'root=/dev/vda1 note='\\''x y'\\'' \\x1b]0;pwned\\x07'"))
      << lines[0];
  EXPECT_TRUE(lines[1].starts_with("# if that fails: " + kexec.path() + " -l /proc/self/fd/"))
      << lines[1];
  EXPECT_EQ(lines[2], "systemctl kexec");
  EXPECT_EQ(log.str().find('\x1b'), std::string::npos);

  std::ostringstream legacy_only;
  ASSERT_TRUE(kexec.into(kexec.preflight(false, true), image, false, true, legacy_only));
  EXPECT_EQ(split_lines(legacy_only.str()).size(), 2u);
  EXPECT_EQ(split_lines(legacy_only.str())[1], kexec.path() + " -e");
}

// systemctl is looked up on PATH; the test points PATH at a fake one for its duration.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& value) {
    if (const char* saved = std::getenv("PATH")) saved_ = saved;
    ::setenv("PATH", value.c_str(), 1);
  }
  ScopedPath(const ScopedPath&) = delete;
  ScopedPath& operator=(const ScopedPath&) = delete;
  ~ScopedPath() {
    if (saved_) {
      ::setenv("PATH", saved_->c_str(), 1);
    } else {
      ::unsetenv("PATH");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(KexecInto, UnderSystemdAQueuedShutdownIsSuccess) {
  FakeKexec kexec(0, 0);
  make_executable(kexec.dir(), "bin/systemctl",
                  "#!/bin/sh\n[ \"$1\" = kexec ] && exit \"$(cat " + kexec.dir().path() +
                      "/systemctl-exit)\"\nexit 99\n");
  kexec.dir().write("systemctl-exit", "0\n");
  const ScopedPath path(kexec.bin() + ":/usr/bin:/bin");
  std::ostringstream log;
  const Status status = kexec.into(kexec.preflight(true, true), kexec.image(), true, false, log);
  EXPECT_TRUE(status) << status.error().describe();
  EXPECT_NE(log.str().find("systemd is shutting down"), std::string::npos) << log.str();

  kexec.dir().write("systemctl-exit", "1\n");
  const Status refused = kexec.into(kexec.preflight(true, true), kexec.image(), true, false, log);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().context.find("systemctl kexec returned (exit status 1"),
            std::string::npos)
      << refused.error().describe();
}

}  // namespace
}  // namespace kdrift
