#include "kbuild/kernel_build.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/fixtures.h"
#include "util/process.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;
using Outcome = BuildResult::Outcome;

// A kernel source in miniature: the targets kdrift's build runs, writing into O= as kbuild does,
// and targets that fail, hang and fill the disk.
constexpr const char* kFakeKernelMakefile =
    "O ?= .\n"
    "olddefconfig:\n"
    "\t@test -f $(O)/.config\n"
    "\t@echo CONFIG_FROM_OLDDEFCONFIG=y >> $(O)/.config\n"
    "\t@echo olddefconfig done\n"
    "localmodconfig:\n"
    "\t@echo '# CONFIG_UNUSED_MODULE is not set' >> $(O)/.config\n"
    "bzImage:\n"
    "\t@mkdir -p $(O)/arch/x86/boot $(O)/include/config\n"
    "\t@echo 'CC=$(CC) base=$(CCACHE_BASEDIR)' > $(O)/compiler\n"
    "\t@cp $(O)/.config $(O)/arch/x86/boot/bzImage\n"
    "\t@echo 6.1.0-fake > $(O)/include/config/kernel.release\n"
    "\t@echo built\n"
    "modules:\n"
    "\t@touch $(O)/modules-built\n"
    "broken:\n"
    "\t@echo \"drivers/fake.c:1:1: error: expected ';' before '}'\"; exit 2\n"
    "hang:\n"
    "\t@echo compiling forever; sleep 30\n"
    "nospace:\n"
    "\t@echo 'fake.o: No space left on device'; exit 2\n"
    "noimage:\n"
    "\t@true\n";

constexpr const char* kBaseConfig = "CONFIG_64BIT=y\n# CONFIG_INTEL_IOMMU_DEFAULT_ON is not set\n";

std::string system_path() {
  const char* path = std::getenv("PATH");
  return path == nullptr ? "" : path;
}

class KernelBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!find_program("make", system_path())) GTEST_SKIP() << "make is not installed";
    dir.write("linux/Makefile", kFakeKernelMakefile);
    dir.write("base.config", kBaseConfig);
    request.source = dir.path() + "/linux";
    request.output = dir.path() + "/out";
    request.base_config = dir.path() + "/base.config";
    request.log_path = dir.path() + "/build.log";
    request.jobs = 3;
    request.candidate = "0123456789abcdef0123456789abcdef01234567";
  }

  // A directory holding an executable script called name, first on the search path.
  std::string tool_dir(const std::string& name, const std::string& script) {
    dir.write("tools/" + name, script);
    EXPECT_EQ(::chmod((dir.path() + "/tools/" + name).c_str(), 0755), 0);
    return dir.path() + "/tools";
  }
  std::string log() const { return read_bytes(request.log_path); }

  TempDir dir;
  BuildRequest request;
};

TEST_F(KernelBuildTest, BuildsOutOfTreeFromTheBaseConfig) {
  const std::string ccache = tool_dir("ccache", "#!/bin/sh\nexec \"$@\"\n");
  MakeBuilder builder(ccache + ":" + system_path());
  const auto built = builder.build(request);
  ASSERT_TRUE(built) << built.error().describe();
  EXPECT_EQ(built->outcome, Outcome::kBuilt) << built->why;
  EXPECT_EQ(built->image, request.output + "/arch/x86/boot/bzImage");
  EXPECT_EQ(built->config, request.output + "/.config");
  EXPECT_EQ(read_bytes(built->config), std::string(kBaseConfig) + "CONFIG_FROM_OLDDEFCONFIG=y\n");
  EXPECT_EQ(built->release, "6.1.0-fake");
  EXPECT_TRUE(built->ccache);
  EXPECT_GT(built->seconds, 0.0);
  EXPECT_NE(read_bytes(request.output + "/compiler").find("CC=ccache gcc"), std::string::npos);
  // ccache sees paths relative to the directory holding source and output, so another bisect's
  // state directory hits the same cache; a base directory set by the user stays theirs.
  const char* users = std::getenv("CCACHE_BASEDIR");
  EXPECT_NE(read_bytes(request.output + "/compiler")
                .find(" base=" + (users != nullptr ? std::string(users) : dir.path()) + "\n"),
            std::string::npos)
      << read_bytes(request.output + "/compiler");
  EXPECT_NE(log().find("olddefconfig done\n"), std::string::npos);
  EXPECT_NE(log().find("'CC=ccache gcc' -j3 bzImage\n"), std::string::npos) << log();
  EXPECT_NE(log().find("\nbuilt\n"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(request.output + "/modules-built"));
  EXPECT_FALSE(std::filesystem::exists(request.source + "/.config"));  // out of tree
}

TEST_F(KernelBuildTest, WithoutCcacheTheKernelsCompilerIsUsed) {
  request.use_ccache = false;
  request.modules = true;
  request.localmodconfig = true;
  const std::string lsmod = tool_dir("lsmod", "#!/bin/sh\n");
  MakeBuilder builder(lsmod + ":" + system_path());
  const auto built = builder.build(request);
  ASSERT_TRUE(built) << built.error().describe();
  EXPECT_EQ(built->outcome, Outcome::kBuilt) << built->why;
  EXPECT_FALSE(built->ccache);
  EXPECT_EQ(read_bytes(request.output + "/compiler").find("ccache"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(request.output + "/modules-built"));
  EXPECT_NE(read_bytes(built->config).find("# CONFIG_UNUSED_MODULE is not set"), std::string::npos);
}

TEST_F(KernelBuildTest, ACompileErrorIsAFailedBuildWithTheLogsEnd) {
  request.target = "broken";
  MakeBuilder builder(system_path());
  const auto failed = builder.build(request);
  ASSERT_TRUE(failed) << failed.error().describe();
  EXPECT_EQ(failed->outcome, Outcome::kFailed);
  EXPECT_NE(failed->why.find("make -j3 broken failed (exit 2)"), std::string::npos) << failed->why;
  EXPECT_NE(failed->why.find("error: expected ';' before '}'"), std::string::npos) << failed->why;
  EXPECT_TRUE(failed->image.empty());
}

TEST_F(KernelBuildTest, ABuildThatHangsIsTimeBounded) {
  request.target = "hang";
  request.timeout = std::chrono::seconds(1);
  MakeBuilder builder(system_path());
  const auto start = std::chrono::steady_clock::now();
  const auto hung = builder.build(request);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  ASSERT_TRUE(hung) << hung.error().describe();
  EXPECT_EQ(hung->outcome, Outcome::kTimedOut);
  EXPECT_NE(hung->why.find("did not finish within the build's 1 s"), std::string::npos);
  EXPECT_NE(hung->why.find("compiling forever"), std::string::npos);
}

TEST_F(KernelBuildTest, AFullDiskIsAnErrorNotASkip) {
  request.target = "nospace";
  MakeBuilder builder(system_path());
  const auto full = builder.build(request);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().code, ENOSPC);
  EXPECT_NE(full.error().context.find("ran out of disk space in " + request.output),
            std::string::npos);
}

TEST_F(KernelBuildTest, ASuccessThatLeavesNoImageIsAFailure) {
  request.target = "noimage";
  MakeBuilder builder(system_path());
  const auto built = builder.build(request);
  ASSERT_TRUE(built);
  EXPECT_EQ(built->outcome, Outcome::kFailed);
  EXPECT_NE(built->why.find("left no arch/*/boot/noimage"), std::string::npos) << built->why;
}

TEST_F(KernelBuildTest, RefusesBeforeBuildingAnything) {
  dir.write("not.config",
            "\x7f"
            "ELF garbage\n");
  request.base_config = dir.path() + "/not.config";
  MakeBuilder builder(system_path());
  const auto not_config = builder.build(request);
  ASSERT_FALSE(not_config);
  EXPECT_NE(not_config.error().context.find("not.config is not a kernel config"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(request.log_path));
  EXPECT_FALSE(std::filesystem::exists(request.output));

  request.base_config = dir.path() + "/base.config";
  request.output = request.source + "/build";
  const auto inside = builder.build(request);
  ASSERT_FALSE(inside);
  EXPECT_NE(inside.error().context.find("must lie outside the source"), std::string::npos);

  request.output = dir.path() + "/out";
  dir.mkdir("empty");
  const auto no_make = MakeBuilder(dir.path() + "/empty").build(request);
  ASSERT_FALSE(no_make);
  EXPECT_EQ(no_make.error().code, ENOENT);
  EXPECT_NE(no_make.error().context.find("make"), std::string::npos);

  ASSERT_EQ(::symlink("/usr/bin/make", (dir.path() + "/empty/make").c_str()), 0);
  request.localmodconfig = true;
  const auto no_lsmod = MakeBuilder(dir.path() + "/empty").build(request);
  ASSERT_FALSE(no_lsmod);
  EXPECT_NE(no_lsmod.error().context.find("lsmod"), std::string::npos);

  request.localmodconfig = false;
  request.log_path = dir.path() + "/no-such-dir/build.log";
  EXPECT_FALSE(builder.build(request));
}

TEST_F(KernelBuildTest, AvailableCoresIsAtLeastOne) {
  EXPECT_GE(available_cores(), 1);
  request.jobs = 0;
  const auto built = MakeBuilder(system_path()).build(request);
  ASSERT_TRUE(built);
  EXPECT_NE(log().find(" -j" + std::to_string(available_cores()) + " bzImage"), std::string::npos);
}

// The user's build command: the candidate in the environment, 125 for "cannot build".
constexpr const char* kBuildScript =
    "#!/bin/sh\n"
    "echo \"building $KDRIFT_BISECT_CANDIDATE in $(pwd -P) with $KDRIFT_BUILD_JOBS jobs\"\n"
    "echo \"config $KDRIFT_BUILD_CONFIG source $KDRIFT_BUILD_SOURCE\"\n"
    "case \"$KDRIFT_BISECT_CANDIDATE\" in\n"
    "  skip) exit 125 ;;\n"
    "  fail) echo 'error: broken'; exit 1 ;;\n"
    "  hang) sleep 30 ;;\n"
    "  remote) exit 0 ;;\n"
    "esac\n"
    "mkdir -p \"$KDRIFT_BUILD_OUTPUT/arch/x86/boot\" \"$KDRIFT_BUILD_OUTPUT/include/config\"\n"
    "cp \"$KDRIFT_BUILD_CONFIG\" \"$KDRIFT_BUILD_OUTPUT/.config\"\n"
    "echo image > \"$KDRIFT_BUILD_OUTPUT/arch/x86/boot/bzImage\"\n"
    "if [ \"$KDRIFT_BISECT_CANDIDATE\" = garbled ]; then\n"
    "  printf '\\033[2J' > \"$KDRIFT_BUILD_OUTPUT/include/config/kernel.release\"\n"
    "else\n"
    "  echo 6.1.0-cmd > \"$KDRIFT_BUILD_OUTPUT/include/config/kernel.release\"\n"
    "fi\n";

class CommandBuildTest : public KernelBuildTest {
 protected:
  void SetUp() override {
    KernelBuildTest::SetUp();
    script = tool_dir("build-kernel", kBuildScript) + "/build-kernel";
  }
  Result<BuildResult> build_candidate(const std::string& candidate) {
    request.candidate = candidate;
    CommandBuilder builder({script});
    return builder.build(request);
  }
  std::string script;
};

TEST_F(CommandBuildTest, RunsTheCommandWithTheCandidateInItsEnvironment) {
  const auto built = build_candidate("abc123");
  ASSERT_TRUE(built) << built.error().describe();
  EXPECT_EQ(built->outcome, Outcome::kBuilt) << built->why;
  EXPECT_EQ(built->image, request.output + "/arch/x86/boot/bzImage");
  EXPECT_EQ(built->release, "6.1.0-cmd");
  EXPECT_EQ(built->config, request.output + "/.config");
  EXPECT_FALSE(built->ccache);
  const std::string source = std::filesystem::canonical(request.source).string();
  EXPECT_NE(log().find("building abc123 in " + source + " with 3 jobs\n"), std::string::npos)
      << log();
  EXPECT_NE(log().find("config " + request.base_config + " source " + request.source),
            std::string::npos);
}

TEST_F(CommandBuildTest, ExitStatusesAreOutcomes) {
  const auto skipped = build_candidate("skip");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->outcome, Outcome::kFailed);
  EXPECT_NE(skipped->why.find("the build command cannot build this candidate (exit 125)"),
            std::string::npos);
  const auto failed = build_candidate("fail");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->outcome, Outcome::kFailed);
  EXPECT_NE(failed->why.find("the build command failed (exit 1)"), std::string::npos);
  EXPECT_NE(failed->why.find("error: broken"), std::string::npos);
  request.timeout = std::chrono::seconds(1);
  const auto hung = build_candidate("hang");
  ASSERT_TRUE(hung);
  EXPECT_EQ(hung->outcome, Outcome::kTimedOut);
}

TEST_F(CommandBuildTest, ABuildDeployedElsewhereLeavesNoImageHere) {
  const auto remote = build_candidate("remote");
  ASSERT_TRUE(remote) << remote.error().describe();
  EXPECT_EQ(remote->outcome, Outcome::kBuilt);
  EXPECT_TRUE(remote->image.empty());
  EXPECT_TRUE(remote->release.empty());
  EXPECT_TRUE(remote->config.empty());
}

TEST_F(CommandBuildTest, AReleaseThatIsNotOneIsAFailure) {
  const auto garbled = build_candidate("garbled");
  ASSERT_TRUE(garbled);
  EXPECT_EQ(garbled->outcome, Outcome::kFailed);
  EXPECT_NE(garbled->why.find("not a kernel release"), std::string::npos) << garbled->why;
  EXPECT_EQ(garbled->why.find('\033'), std::string::npos);
}

TEST_F(CommandBuildTest, RefusesWhatCannotBeRun) {
  EXPECT_FALSE(CommandBuilder({}).build(request));
  const auto missing = CommandBuilder({dir.path() + "/no-such-command"}).build(request);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
  dir.write("not.config", "plain text\n");
  request.base_config = dir.path() + "/not.config";
  EXPECT_FALSE(build_candidate("abc"));
}

}  // namespace
}  // namespace kdrift
