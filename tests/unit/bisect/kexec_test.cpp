#include "bisect/kexec.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "support/fixtures.h"
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

TEST(SystemdIsPid1, LooksForTheRunDirectory) {
  const TempDir root;
  EXPECT_FALSE(systemd_is_pid1(SysRoot(root.path())));
  root.write("run/systemd/system", "a file, not the directory");
  EXPECT_FALSE(systemd_is_pid1(SysRoot(root.path())));
  const TempDir booted;
  booted.mkdir("run/systemd/system");
  EXPECT_TRUE(systemd_is_pid1(SysRoot(booted.path())));
}

TEST(KexecCommands, TheCommandLineStaysOneWord) {
  const KexecImage image{"/boot/vmlinuz-6.1", "/boot/initrd.img-6.1",
                         "root=/dev/vda1 quiet dyndbg=\"file x.c +p\" note='it''s'"};
  EXPECT_EQ(kexec_load_command("/usr/sbin/kexec", image, true),
            (std::vector<std::string>{
                "/usr/sbin/kexec", "-s", "-l", "/boot/vmlinuz-6.1", "--initrd=/boot/initrd.img-6.1",
                "--command-line=root=/dev/vda1 quiet dyndbg=\"file x.c +p\" note='it''s'"}));
  EXPECT_EQ(kexec_load_command("/sbin/kexec", {"/k", "", ""}, false),
            (std::vector<std::string>{"/sbin/kexec", "-l", "/k", "--command-line="}));
}

TEST(KexecCommands, SystemdShutsDownFirst) {
  EXPECT_EQ(kexec_exec_command("/sbin/kexec", true),
            (std::vector<std::string>{"systemctl", "kexec"}));
  EXPECT_EQ(kexec_exec_command("/sbin/kexec", false),
            (std::vector<std::string>{"/sbin/kexec", "-e"}));
}

// A kexec that records each call's words as "[w1][w2]..." lines and does what it is told by
// file: load_file_exit for -s, load_exit for a legacy load; exec always returns 0, as if the jump
// had not happened.
class FakeKexec {
 public:
  explicit FakeKexec(int load_file_exit = 1, int load_exit = 0) {
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
                        "  -s) echo \"fake kexec_file_load: Operation not permitted\" >&2; exit " +
                        std::to_string(load_file_exit) +
                        ";;\n"
                        "  -l) echo \"fake kexec_load ran\"; exit " +
                        std::to_string(load_exit) +
                        ";;\n"
                        "  -e) echo \"fake exec came back\"; exit 0;;\n"
                        "esac\n"
                        "exit 99\n");
  }
  std::string path() const { return dir_.path() + "/bin/kexec"; }
  std::string bin() const { return dir_.path() + "/bin"; }
  KexecImage image(const std::string& command_line = "root=/dev/vda1 x=\"a b\"") const {
    return {dir_.path() + "/vmlinuz", dir_.path() + "/initrd.img", command_line};
  }
  KexecPreflight preflight(bool file, bool legacy) const {
    KexecPreflight preflight;
    preflight.kexec_path = path();
    preflight.file_load_possible = file;
    preflight.legacy_load_possible = legacy;
    return preflight;
  }
  std::vector<std::string> calls() const {
    std::ifstream in(calls_path());
    std::stringstream text;
    text << in.rdbuf();
    return split_lines(text.str());
  }
  const TempDir& dir() const { return dir_; }

 private:
  std::string calls_path() const { return dir_.path() + "/calls"; }
  TempDir dir_;
};

TEST(KexecInto, FallsBackToTheLegacyCallAndReportsAnExecThatReturned) {
  const FakeKexec kexec;
  std::ostringstream log;
  const KexecImage image = kexec.image();
  const Status status = kexec_into(kexec.preflight(true, true), image, false, false, log);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().context.find("returned"), std::string::npos)
      << status.error().describe();
  EXPECT_NE(status.error().context.find("still on the old kernel"), std::string::npos);
  const std::string k = image.kernel;
  const std::string i = image.initrd;
  EXPECT_EQ(
      kexec.calls(),
      (std::vector<std::string>{
          "[-s][-l][" + k + "][--initrd=" + i + "][--command-line=root=/dev/vda1 x=\"a b\"]",
          "[-l][" + k + "][--initrd=" + i + "][--command-line=root=/dev/vda1 x=\"a b\"]", "[-e]"}));
  // Both loads' output is in the log, so a failing signature check can be read afterwards.
  EXPECT_NE(log.str().find("fake kexec_file_load: Operation not permitted"), std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("fake kexec_load ran"), std::string::npos);
  EXPECT_NE(log.str().find("fake exec came back"), std::string::npos);
}

TEST(KexecInto, ALoadThatFailsBothWaysIsAnErrorAndNothingIsExecuted) {
  const FakeKexec kexec(1, 2);
  std::ostringstream log;
  const Status status = kexec_into(kexec.preflight(true, true), kexec.image(), false, false, log);
  ASSERT_FALSE(status);
  const std::string why = status.error().context;
  EXPECT_NE(why.find("could not load"), std::string::npos) << why;
  EXPECT_NE(why.find("kexec_file_load exited 1 (fake kexec_file_load: Operation not permitted)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("kexec_load exited 2 (fake kexec_load ran)"), std::string::npos) << why;
  EXPECT_EQ(kexec.calls().size(), 2u);
}

TEST(KexecInto, UsesOnlyTheCallsThePreflightAllows) {
  const FakeKexec kexec(0, 0);
  std::ostringstream log;
  EXPECT_FALSE(kexec_into(kexec.preflight(false, true), kexec.image(), false, false, log));
  ASSERT_EQ(kexec.calls().size(), 2u);
  EXPECT_EQ(kexec.calls()[0].substr(0, 4), "[-l]");
  EXPECT_EQ(kexec.calls()[1], "[-e]");

  const FakeKexec file_only(0, 0);
  EXPECT_FALSE(kexec_into(file_only.preflight(true, false), file_only.image(), false, false, log));
  ASSERT_EQ(file_only.calls().size(), 2u);
  EXPECT_EQ(file_only.calls()[0].substr(0, 8), "[-s][-l]");
}

TEST(KexecInto, RefusesWhatThePreflightRefused) {
  const FakeKexec kexec;
  KexecPreflight preflight = kexec.preflight(true, true);
  preflight.problems.push_back("kexec was not found: install kexec-tools.");
  std::ostringstream log;
  const Status status = kexec_into(preflight, kexec.image(), false, true, log);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().context.find("install kexec-tools"), std::string::npos);
  EXPECT_TRUE(kexec.calls().empty());
  EXPECT_TRUE(log.str().empty());
}

TEST(KexecInto, RefusesAMissingOrUnreadableImage) {
  const FakeKexec kexec;
  std::ostringstream log;
  KexecImage image = kexec.image();
  image.kernel += ".missing";
  Status status = kexec_into(kexec.preflight(true, true), image, false, false, log);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ENOENT);
  EXPECT_EQ(status.error().context, "kernel " + image.kernel);

  image = kexec.image();
  image.initrd = kexec.dir().path();  // a directory
  status = kexec_into(kexec.preflight(true, true), image, false, false, log);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().context.find("initrd"), std::string::npos);
  EXPECT_NE(status.error().context.find("not a regular file"), std::string::npos);

  image = kexec.image();
  image.kernel.clear();
  EXPECT_FALSE(kexec_into(kexec.preflight(true, true), image, false, false, log));
  EXPECT_TRUE(kexec.calls().empty());
}

TEST(KexecInto, DryRunPrintsTheCommandsAndRunsNothing) {
  const FakeKexec kexec;
  std::ostringstream log;
  const KexecImage image = kexec.image("root=/dev/vda1 note='x y'");
  ASSERT_TRUE(kexec_into(kexec.preflight(true, true), image, true, true, log));
  EXPECT_TRUE(kexec.calls().empty());
  const std::string k = image.kernel;
  const std::string i = image.initrd;
  EXPECT_EQ(log.str(), kexec.path() + " -s -l " + k + " --initrd=" + i +
                           " '--command-line=root=/dev/vda1 note='\\''x y'\\'''\n"
                           "# if that fails: " +
                           kexec.path() + " -l " + k + " --initrd=" + i +
                           " '--command-line=root=/dev/vda1 note='\\''x y'\\'''\n"
                           "systemctl kexec\n");

  std::ostringstream legacy_only;
  ASSERT_TRUE(kexec_into(kexec.preflight(false, true), image, false, true, legacy_only));
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
  const FakeKexec kexec(0, 0);
  make_executable(kexec.dir(), "bin/systemctl",
                  "#!/bin/sh\n[ \"$1\" = kexec ] && exit \"$(cat " + kexec.dir().path() +
                      "/systemctl-exit)\"\nexit 99\n");
  kexec.dir().write("systemctl-exit", "0\n");
  const ScopedPath path(kexec.bin() + ":/usr/bin:/bin");
  std::ostringstream log;
  const Status status = kexec_into(kexec.preflight(true, true), kexec.image(), true, false, log);
  EXPECT_TRUE(status) << status.error().describe();
  EXPECT_NE(log.str().find("systemd is shutting down"), std::string::npos) << log.str();

  kexec.dir().write("systemctl-exit", "1\n");
  const Status refused = kexec_into(kexec.preflight(true, true), kexec.image(), true, false, log);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().context.find("systemctl kexec returned (exit status 1"),
            std::string::npos)
      << refused.error().describe();
}

}  // namespace
}  // namespace kdrift
