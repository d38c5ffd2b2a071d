// kdrift bisect start --git through the real binary, over a small git repository whose "kernel"
// is built and booted by stand-in commands: the answer, the log git replays, the build failures,
// boots that hang, merges, a kill in the middle of a build, a full disk, and every refusal before
// anything is recorded. The real tree and real kernels are the lab's (scripts/lab/kernel-bisect).

#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift {
namespace {

using testing::run_command;
using testing::TempDir;

// The stand-in build: the "image" is the tree's speed file, so the boot can tell a slow kernel
// from a fast one; a tree holding a file named broken does not build.
constexpr const char* kBuildScript = R"sh(#!/bin/sh
set -e
[ ! -e "$KDRIFT_BUILD_SOURCE/broken" ] || { echo "broken.c:1: error: expected ';'"; exit 2; }
if [ -n "$KERNEL_TEST_BUILD_STALL" ] && [ ! -e "$KERNEL_TEST_BUILD_STALL" ]; then
  echo $$ > "$KERNEL_TEST_BUILD_STALL"
  sleep 60
fi
mkdir -p "$KDRIFT_BUILD_OUTPUT/arch/x86/boot" "$KDRIFT_BUILD_OUTPUT/include/config"
cp "$KDRIFT_BUILD_SOURCE/speed" "$KDRIFT_BUILD_OUTPUT/arch/x86/boot/bzImage"
[ -z "$KERNEL_TEST_IMAGE_BYTES" ] ||
  head -c "$KERNEL_TEST_IMAGE_BYTES" /dev/zero >> "$KDRIFT_BUILD_OUTPUT/arch/x86/boot/bzImage"
cp "$KDRIFT_BUILD_CONFIG" "$KDRIFT_BUILD_OUTPUT/.config"
echo "6.1.0-test-$(cat "$KDRIFT_BUILD_SOURCE/number")" > "$KDRIFT_BUILD_OUTPUT/include/config/kernel.release"
)sh";

// The stand-in boot: without a metric its exit status is the verdict, as for git bisect run.
constexpr const char* kBootScript = R"sh(#!/bin/sh
echo "booting $KDRIFT_BISECT_RELEASE from $KDRIFT_BISECT_KERNEL"
case "$(head -c 4 "$KDRIFT_BISECT_KERNEL")" in
  hang) sleep 60 ;;
  gone) exit 125 ;;
  slow) exit 1 ;;
  *) exit 0 ;;
esac
)sh";

class BisectKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("build.sh", kBuildScript);
    dir_.write("boot.sh", kBootScript);
    dir_.write("base.config", "CONFIG_64BIT=y\nCONFIG_BLOCK=y\n");
    ASSERT_EQ(sh("chmod 755 build.sh boot.sh && git init -q -b main repo").status, 0);
  }

  testing::CommandRun sh(const std::string& script) {
    return run_command("cd " + dir_.path() + " && " + script);
  }
  // Commits "change FIRST".."change LAST" on the current branch; speeds[n] is what change n
  // writes into the speed file ("fast", "slow", "hang", "gone"), broken the changes that add a
  // file the build refuses (and the next change removes).
  void commit_changes(int first, int last, const std::map<int, std::string>& speeds,
                      const std::set<int>& broken = {}) {
    std::string script =
        "cd repo && export GIT_AUTHOR_NAME='Kay Dev' GIT_AUTHOR_EMAIL=kay@example.org "
        "GIT_COMMITTER_NAME='Kay Dev' GIT_COMMITTER_EMAIL=kay@example.org; ";
    for (int n = first; n <= last; ++n) {
      const auto speed = speeds.find(n);
      if (speed != speeds.end()) script += "echo " + speed->second + " > speed; ";
      script += broken.count(n) ? "touch broken; " : "rm -f broken; ";
      script += "echo " + std::to_string(n) + " > number; mkdir -p drivers/block; echo " +
                std::to_string(n) + " >> drivers/block/virtio_blk.c; git add -A; ";
      script += "GIT_AUTHOR_DATE='2026-01-" + std::to_string(n % 28 + 1) +
                "T10:00:00Z' git commit -q -m 'change " + std::to_string(n) + "'; ";
    }
    const auto made = sh(script);
    ASSERT_EQ(made.status, 0) << made.out;
  }
  std::string sha_of(const std::string& subject) {
    const auto found =
        sh("cd repo && git log --all --format=%H --grep='^" + subject + "$' | head -1");
    return found.out.substr(0, found.out.find('\n'));
  }

  testing::CommandRun bisect(const std::string& arguments) {
    return testing::run_kdrift("bisect --state-dir " + state() + " " + arguments);
  }
  testing::CommandRun start(const std::string& good, const std::string& bad,
                            const std::string& more = "") {
    return bisect("start --git " + dir_.path() + "/repo --good " + good + " --bad " + bad +
                  " --config " + dir_.path() + "/base.config --build-command " + dir_.path() +
                  "/build.sh --boot-command " + dir_.path() + "/boot.sh " + more);
  }
  Json report() {
    const auto run =
        testing::run_kdrift("bisect --state-dir " + state() + " report --format json", true);
    EXPECT_EQ(run.status, 0) << run.out;
    return Json::parse(run.out);
  }
  std::string state() const { return state_.empty() ? dir_.path() + "/state" : state_; }

  TempDir dir_;
  std::string state_;
};

TEST_F(BisectKernel, NamesTheFirstBadCommitWithALogGitReplays) {
  commit_changes(0, 11, {{0, "fast"}, {7, "slow"}});
  const auto started = start("HEAD~11", "HEAD");
  ASSERT_EQ(started.status, 0) << started.out;
  EXPECT_NE(started.out.find("build"), std::string::npos) << started.out;  // the estimate
  const auto stepped = bisect("step");
  ASSERT_EQ(stepped.status, 0) << stepped.out;

  const Json result = report();
  ASSERT_EQ(result["state"], "done") << result.dump(2);
  const Json& kernel = result["kernel"];
  EXPECT_EQ(kernel["first_bad_commit"]["sha"], sha_of("change 7"));
  EXPECT_EQ(kernel["first_bad_commit"]["subject"], "change 7");
  EXPECT_EQ(kernel["first_bad_commit"]["author"], "Kay Dev <kay@example.org>");
  EXPECT_EQ(kernel["first_bad_commit"]["files"],
            Json::array({"drivers/block/virtio_blk.c", "number", "speed"}));
  EXPECT_EQ(kernel["could_also_be"], Json::array());
  // 11 commits after the good one: at most ceil(log2(11)) + 1 builds.
  EXPECT_LE(kernel["builds"]["built"].get<int>(), 5);

  // What a kernel developer pastes into git: replayed in a clone, git names the same commit.
  std::ofstream(dir_.path() + "/bisect.log") << kernel["git_bisect_log"].get<std::string>();
  const auto replayed =
      sh("git clone -q repo replay && cd replay && git bisect replay ../bisect.log");
  EXPECT_NE(replayed.out.find(sha_of("change 7") + " is the first bad commit"), std::string::npos)
      << replayed.out;

  // Each candidate built keeps its log, config, release and image in the state directory.
  const std::string built = state() + "/candidates/" + sha_of("change 7").substr(0, 12);
  for (const char* kept : {"build.log", "config", "release", "bzImage", "boot-1.log"})
    EXPECT_TRUE(std::filesystem::exists(built + "/" + kept)) << kept;
  EXPECT_EQ(testing::read_bytes(built + "/release"), "6.1.0-test-7\n");
  EXPECT_NE(testing::read_bytes(built + "/boot-1.log").find("booting 6.1.0-test-7"),
            std::string::npos);

  const auto markdown = bisect("report --format markdown");
  ASSERT_EQ(markdown.status, 0) << markdown.out;
  EXPECT_NE(markdown.out.find("change 7"), std::string::npos) << markdown.out;
  EXPECT_NE(markdown.out.find("git bisect start --first-parent"), std::string::npos);
}

TEST_F(BisectKernel, BuildFailuresAndBootsThatNeverComeBackAreSkipsNotVerdicts) {
  // 5 does not build, 6 hangs at boot, 7 does not boot; 8 is the first slow one.
  commit_changes(0, 10, {{0, "fast"}, {6, "hang"}, {7, "gone"}, {8, "slow"}}, {5});
  ASSERT_EQ(start("HEAD~10", "HEAD", "--boot-timeout 10").status, 0);
  const auto stepped = bisect("step");
  ASSERT_EQ(stepped.status, 0) << stepped.out;
  const Json result = report();
  const Json& kernel = result["kernel"];
  // Whatever the skips left ambiguous is named, and the truth is among the names.
  std::set<std::string> named = {kernel["first_bad_commit"]["sha"].get<std::string>()};
  for (const auto& also : kernel["could_also_be"])
    named.insert(also.is_object() ? also["sha"].get<std::string>() : also.get<std::string>());
  EXPECT_TRUE(named.count(sha_of("change 8"))) << kernel.dump(2);
  for (const int never : {0, 1, 2, 3, 4, 9, 10})
    EXPECT_FALSE(named.count(sha_of("change " + std::to_string(never)))) << never;
  for (const auto& step : result["steps"]) {
    const std::string subject =
        sh("cd repo && git log -1 --format=%s " + step["commit"].get<std::string>()).out;
    if (subject.rfind("change 5", 0) == 0) {
      EXPECT_EQ(step["build"]["outcome"], "failed") << step.dump(2);
      EXPECT_EQ(step["verdict"], "skip") << step.dump(2);
    }
    if (subject.rfind("change 6", 0) == 0 || subject.rfind("change 7", 0) == 0) {
      EXPECT_EQ(step["verdict"], "skip") << step.dump(2);
    }
  }
}

TEST_F(BisectKernel, AMergeOnTheFirstParentIsAnsweredWithTheCommitsInsideIt) {
  commit_changes(0, 3, {{0, "fast"}});
  // The topic branches off change 2 and touches files of its own, so the merge is clean.
  const std::string who = "git -c user.name='Kay Dev' -c user.email=kay@example.org ";
  std::string topic = "cd repo && git checkout -q -b topic HEAD~1";
  for (const auto& [subject, speed] :
       {std::pair{"topic 1", "fast"}, {"topic 2", "slow"}, {"topic 3", "slow"}}) {
    topic += std::string(" && echo ") + speed + " > speed && echo '" + subject +
             "' >> topic.c && git add -A && " + who + "commit -q -m '" + subject + "'";
  }
  topic += " && git checkout -q main && " + who + "merge -q --no-ff -m 'Merge topic' topic";
  const auto merged = sh(topic);
  ASSERT_EQ(merged.status, 0) << merged.out;
  commit_changes(5, 7, {});
  ASSERT_EQ(start(sha_of("change 0"), "main").status, 0);
  ASSERT_EQ(bisect("step").status, 0);
  const Json kernel = report()["kernel"];
  // First parent: the topic's own commits are not candidates, the merge is the answer.
  EXPECT_EQ(kernel["first_bad_commit"]["subject"], "Merge topic") << kernel.dump(2);
  EXPECT_EQ(kernel["first_bad_commit"]["merge"], true);
  const Json& inside = kernel["first_bad_commit"]["inside"];
  EXPECT_EQ(inside["good"], sha_of("change 2")) << inside.dump(2);  // the merge base
  EXPECT_EQ(inside["bad"], sha_of("topic 3"));
  EXPECT_EQ(inside["commits"], 3);
  // Its start options bisect the side branch and name the topic's culprit.
  state_ = dir_.path() + "/inside";
  ASSERT_EQ(start(inside["good"], inside["bad"]).status, 0);
  ASSERT_EQ(bisect("step").status, 0);
  EXPECT_EQ(report()["kernel"]["first_bad_commit"]["subject"], "topic 2");
}

TEST_F(BisectKernel, AKillDuringABuildResumesWithTheSameAnswer) {
  commit_changes(0, 8, {{0, "fast"}, {3, "slow"}});
  const std::string stall = dir_.path() + "/stalled-build";
  ASSERT_EQ(start("HEAD~8", "HEAD").status, 0);
  const auto killed =
      run_command("KERNEL_TEST_BUILD_STALL=" + stall + " timeout -s KILL 3 " +
                  testing::kdrift_binary() + " bisect --state-dir " + state() + " step");
  EXPECT_EQ(killed.status, 128 + 9) << killed.out;
  // The build kdrift started is its own process group; end what the kill left behind.
  const std::string pid = testing::read_bytes(stall);
  ASSERT_FALSE(pid.empty());
  run_command("kill -9 -- -$(ps -o pgid= " + pid.substr(0, pid.find('\n')) + ") 2>/dev/null");

  const auto status = bisect("status");
  EXPECT_EQ(status.status, 0) << status.out;
  const auto resumed =
      run_command("KERNEL_TEST_BUILD_STALL=" + stall + " " + testing::kdrift_binary() +
                  " bisect --state-dir " + state() + " step");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  const Json kernel = report()["kernel"];
  EXPECT_EQ(kernel["first_bad_commit"]["subject"], "change 3") << kernel.dump(2);
}

TEST_F(BisectKernel, AFullDiskStopsTheBisectCleanlyAndItResumesOnceThereIsRoom) {
  if (!testing::is_root()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  commit_changes(0, 4, {{0, "fast"}, {2, "slow"}});
  dir_.mkdir("small");
  const std::string small = dir_.path() + "/small";
  if (::mount("kdrift-test", small.c_str(), "tmpfs", 0, "size=4m") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs: " << std::strerror(errno);
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{small};
  state_ = small + "/state";
  // Less room than the estimate: refused before anything is recorded.
  const auto refused = start("HEAD~4", "HEAD");
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_NE(refused.out.find("MiB free"), std::string::npos) << refused.out;
  EXPECT_FALSE(std::filesystem::exists(state() + "/journal.jsonl"));

  // Room for the estimate, then a build that fills the disk: the step stops, says where and
  // why, and records nothing it did not finish.
  ASSERT_EQ(::mount("kdrift-test", small.c_str(), "tmpfs", MS_REMOUNT, "size=200m"), 0);
  const auto started = start("HEAD~4", "HEAD");
  ASSERT_EQ(started.status, 0) << started.out;
  const auto full = run_command("KERNEL_TEST_IMAGE_BYTES=300000000 " + testing::kdrift_binary() +
                                " bisect --state-dir " + state() + " step");
  EXPECT_EQ(full.status, 2) << full.out;
  EXPECT_NE(full.out.find("ran out of disk space in " + state() + "/build"), std::string::npos)
      << full.out;
  EXPECT_EQ(testing::read_bytes(state() + "/journal.jsonl").find("\"event\":\"build\""),
            std::string::npos);
  const auto status = bisect("status");
  EXPECT_EQ(status.status, 0) << status.out;

  // Room again: the same bisect goes on to the answer.
  ASSERT_EQ(::mount("kdrift-test", small.c_str(), "tmpfs", MS_REMOUNT, "size=600m"), 0);
  const auto resumed = bisect("step");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  EXPECT_EQ(report()["kernel"]["first_bad_commit"]["subject"], "change 2");
}

// A config bisect through make: the tree's Makefile stands in for kconfig (olddefconfig keeps the
// config but for one select), the build is slow when CONFIG_SLOW is set.
TEST_F(BisectKernel, AConfigBisectNamesTheSymbolWithItsHelp) {
  commit_changes(0, 0, {{0, "fast"}});
  dir_.write("repo/Makefile",
             "olddefconfig:\n"
             "\t@if grep -q '^CONFIG_SLOW=y' $(O)/.config && ! grep -q '^CONFIG_HELPER=y' "
             "$(O)/.config; then echo CONFIG_HELPER=y >> $(O)/.config; fi\n");
  dir_.write("repo/drivers/block/Kconfig",
             "config HELPER\n\tbool\n\n"
             "config SLOW\n\tbool \"Slow every request down\"\n\tselect HELPER\n\thelp\n"
             "\t  Adds a delay to each request's submission.\n");
  ASSERT_EQ(sh("cd repo && git add -A && git -c user.name=K -c user.email=k@x commit -q -m "
               "'kconfig'")
                .status,
            0);
  dir_.write("good.config", "CONFIG_64BIT=y\nCONFIG_BLOCK=y\nCONFIG_NR_CPUS=8\n");
  dir_.write("bad.config",
             "CONFIG_64BIT=y\nCONFIG_BLOCK=y\nCONFIG_NR_CPUS=64\nCONFIG_SLOW=y\n"
             "CONFIG_HELPER=y\nCONFIG_DEBUG_A=y\nCONFIG_DEBUG_B=y\nCONFIG_LOCALVERSION=\"-x\"\n");
  // The image is slow when the candidate's config sets CONFIG_SLOW.
  dir_.write("build.sh",
             "#!/bin/sh\nset -e\nmkdir -p \"$KDRIFT_BUILD_OUTPUT/arch/x86/boot\" "
             "\"$KDRIFT_BUILD_OUTPUT/include/config\"\n"
             "if grep -q '^CONFIG_SLOW=y' \"$KDRIFT_BUILD_CONFIG\"; then s=slow; else s=fast; fi\n"
             "echo $s > \"$KDRIFT_BUILD_OUTPUT/arch/x86/boot/bzImage\"\n"
             "cp \"$KDRIFT_BUILD_CONFIG\" \"$KDRIFT_BUILD_OUTPUT/.config\"\n"
             "echo 6.1.0-$KDRIFT_BISECT_CANDIDATE > "
             "\"$KDRIFT_BUILD_OUTPUT/include/config/kernel.release\"\n");
  const auto started = bisect(
      "start --git " + dir_.path() + "/repo --config-bisect --rev HEAD --good-config " +
      dir_.path() + "/good.config --bad-config " + dir_.path() + "/bad.config" +
      " --build-command " + dir_.path() + "/build.sh --boot-command " + dir_.path() + "/boot.sh");
  ASSERT_EQ(started.status, 0) << started.out;
  // The plan's make runs take minutes on a kernel tree: start says how far it is.
  EXPECT_NE(started.out.find("planning the config bisect: make olddefconfig, run 1\n"),
            std::string::npos)
      << started.out;
  EXPECT_NE(started.out.find("planned in "), std::string::npos) << started.out;
  const auto stepped = bisect("step");
  ASSERT_EQ(stepped.status, 0) << stepped.out;
  const Json kernel = report()["kernel"];
  ASSERT_TRUE(kernel.contains("config_change")) << kernel.dump(2);
  std::set<std::string> symbols;
  for (const auto& symbol : kernel["config_change"]["symbols"]) {
    symbols.insert(symbol["symbol"].get<std::string>());
    if (symbol["symbol"] == "SLOW") {
      EXPECT_EQ(symbol["help"]["file"], "drivers/block/Kconfig") << symbol.dump(2);
      EXPECT_NE(symbol["help"]["help"].get<std::string>().find("Adds a delay"), std::string::npos);
    }
  }
  // The select moves HELPER with SLOW; none of the harmless changes is named.
  EXPECT_TRUE(symbols.count("SLOW")) << kernel.dump(2);
  for (const char* harmless : {"NR_CPUS", "DEBUG_A", "DEBUG_B", "LOCALVERSION"})
    EXPECT_FALSE(symbols.count(harmless)) << harmless << "\n" << kernel.dump(2);
  const auto markdown = bisect("report --format markdown");
  EXPECT_NE(markdown.out.find("CONFIG_SLOW"), std::string::npos) << markdown.out;
}

TEST_F(BisectKernel, EveryRefusalComesBeforeAnythingIsRecorded) {
  commit_changes(0, 4, {{0, "fast"}, {3, "slow"}});
  dir_.write("not-a.config", "#!/bin/sh\necho hello\n");
  const std::string repo = dir_.path() + "/repo";
  const std::string commands =
      " --build-command " + dir_.path() + "/build.sh --boot-command " + dir_.path() + "/boot.sh";
  const std::vector<std::pair<std::string, std::string>> refusals = {
      {"start --git " + repo + " --good nosuchrev --bad HEAD" + commands, "nosuchrev"},
      {"start --git " + repo + " --good HEAD --bad HEAD~4" + commands, "ancestor"},
      {"start --git " + repo + " --good 'HEAD~4;id' --bad HEAD" + commands, "revision"},
      {"start --git " + repo + " --good HEAD~4 --bad HEAD --config " + dir_.path() +
           "/not-a.config" + commands,
       "not a kernel config"},
      {"start --git " + repo + " --good HEAD~4 --bad HEAD --build-command build.sh", "absolute"},
      {"start --git " + dir_.path() + " --good HEAD~4 --bad HEAD" + commands, "git work tree"},
  };
  for (const auto& [arguments, said] : refusals) {
    const auto refused = bisect(arguments);
    EXPECT_EQ(refused.status, 2) << arguments << "\n" << refused.out;
    EXPECT_NE(refused.out.find(said), std::string::npos) << arguments << "\n" << refused.out;
    EXPECT_FALSE(std::filesystem::exists(state() + "/journal.jsonl")) << arguments;
  }
  // A tree with uncommitted changes names them, and the user's checkout is left as it was.
  ASSERT_EQ(sh("echo local >> repo/drivers/block/virtio_blk.c").status, 0);
  const auto dirty = start("HEAD~4", "HEAD");
  EXPECT_EQ(dirty.status, 2) << dirty.out;
  EXPECT_NE(dirty.out.find("drivers/block/virtio_blk.c"), std::string::npos) << dirty.out;
  EXPECT_FALSE(std::filesystem::exists(state() + "/journal.jsonl"));
  EXPECT_EQ(sh("cd repo && git diff --stat | tail -1").out.find("1 file changed"), 1u);
}

TEST_F(BisectKernel, ABuildThatHangsIsEndedAndSkipped) {
  commit_changes(0, 4, {{0, "fast"}, {3, "slow"}});
  ASSERT_EQ(start("HEAD~4", "HEAD", "--build-timeout 10").status, 0);
  // The first build stalls past its time and is skipped; the others build.
  const auto stepped =
      run_command("KERNEL_TEST_BUILD_STALL=" + dir_.path() + "/stall " + testing::kdrift_binary() +
                  " bisect --state-dir " + state() + " step");
  ASSERT_EQ(stepped.status, 0) << stepped.out;
  const Json result = report();
  EXPECT_EQ(result["kernel"]["builds"]["timed_out"], 1) << result.dump(2);
  for (const auto& step : result["steps"]) {
    if (step["build"]["outcome"] == "timed-out") {
      EXPECT_EQ(step["verdict"], "skip");
    }
  }
  // The stalled build's own sleep went with it: its whole process group was ended.
  const std::string pid = testing::read_bytes(dir_.path() + "/stall");
  EXPECT_NE(run_command("pgrep -g " + pid.substr(0, pid.find('\n'))).status, 0);
}

}  // namespace
}  // namespace kdrift
