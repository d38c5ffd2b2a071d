#include "kbuild/git_tree.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/fixtures.h"
#include "util/process.h"
#include "util/text.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;

bool git_installed() {
  const char* path = std::getenv("PATH");
  return find_program("git", path == nullptr ? "" : path).has_value();
}

// git in dir with a fixed identity and clock, so every run makes the same history shape.
std::string git(const std::string& dir, const std::vector<std::string>& args,
                const std::string& date = "2024-01-01T12:00:00+00:00") {
  std::vector<std::string> argv = {"git",
                                   "-C",
                                   dir,
                                   "-c",
                                   "user.name=A U Thor",
                                   "-c",
                                   "user.email=a@example.org",
                                   "-c",
                                   "init.defaultBranch=main"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.capture_output = true;
  options.environment = {{"GIT_CONFIG_NOSYSTEM", "1"},
                         {"GIT_CONFIG_GLOBAL", "/dev/null"},
                         {"GIT_AUTHOR_DATE", date},
                         {"GIT_COMMITTER_DATE", date}};
  auto ran = run_process(argv, options);
  EXPECT_TRUE(ran && ran->exit_status == 0)
      << shell_quoted(argv) << ": " << (ran ? ran->output : ran.error().describe());
  return ran ? std::string(trim(ran->output)) : std::string();
}

// base ── m1 ──────── merge ── m2     (main)
//     └── s1 ── s2 ──┘                (side)
class GitTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!git_installed()) GTEST_SKIP() << "git is not installed";
    repo = dir.path() + "/repo";
    git(dir.path(), {"init", "-q", repo});
    commit("a", "base", "2024-01-01T10:00:00+00:00");
    base = head();
    git(repo, {"checkout", "-q", "-b", "side"});
    commit("b", "side one", "2024-01-02T10:00:00+00:00");
    s1 = head();
    commit("b", "side two", "2024-01-03T10:00:00+00:00");
    git(repo, {"checkout", "-q", "main"});
    commit("c", "main one", "2024-01-04T10:00:00+00:00");
    m1 = head();
    git(repo, {"merge", "-q", "--no-ff", "side", "-m", "merge side"}, "2024-01-05T10:00:00+00:00");
    merge = head();
    commit("d", "main two", "2024-01-06T10:00:00+00:00");
    m2 = head();
  }

  void commit(const std::string& file, const std::string& subject, const std::string& date) {
    dir.write("repo/" + file, subject + "\n");
    git(repo, {"add", file}, date);
    git(repo, {"commit", "-q", "-m", subject}, date);
  }
  std::string head() { return git(repo, {"rev-parse", "HEAD"}); }
  GitTree open() {
    auto tree = GitTree::open(repo);
    EXPECT_TRUE(tree) << tree.error().describe();
    return std::move(*tree);
  }

  TempDir dir;
  std::string repo, base, s1, m1, merge, m2;
};

TEST_F(GitTreeTest, OpensAWorkTreeByItsTopDirectory) {
  dir.mkdir("repo/sub/dir");
  auto tree = GitTree::open(repo + "/sub/dir");
  ASSERT_TRUE(tree) << tree.error().describe();
  EXPECT_EQ(tree->path(), std::filesystem::canonical(repo).string());
}

TEST_F(GitTreeTest, RefusesWhatIsNotAWorkTree) {
  dir.mkdir("plain");
  const auto plain = GitTree::open(dir.path() + "/plain");
  ASSERT_FALSE(plain);
  EXPECT_NE(plain.error().context.find(dir.path() + "/plain is not a git work tree"),
            std::string::npos)
      << plain.error().context;

  git(dir.path(), {"init", "-q", "--bare", dir.path() + "/bare.git"});
  const auto bare = GitTree::open(dir.path() + "/bare.git");
  ASSERT_FALSE(bare);
  EXPECT_NE(bare.error().context.find("bare.git is not a git work tree"), std::string::npos);

  const auto missing = GitTree::open(dir.path() + "/missing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_EQ(missing.error().context, dir.path() + "/missing");
}

TEST_F(GitTreeTest, ResolvesRevisionsToFullShas) {
  const GitTree tree = open();
  EXPECT_EQ(tree.resolve("HEAD").value_or(""), m2);
  EXPECT_EQ(tree.resolve("main~1").value_or(""), merge);
  EXPECT_EQ(tree.resolve("side~1").value_or(""), s1);
  EXPECT_EQ(tree.resolve(m1.substr(0, 10)).value_or(""), m1);
}

TEST_F(GitTreeTest, RefusesUnknownRevisionsAndOptions) {
  const GitTree tree = open();
  const auto unknown = tree.resolve("no-such-branch");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().context.find("unknown revision \"no-such-branch\""), std::string::npos)
      << unknown.error().context;
  for (const std::string rev : {"-x", "--all", "--output=/tmp/x"}) {
    const auto option = tree.resolve(rev);
    ASSERT_FALSE(option) << rev;
    EXPECT_NE(option.error().context.find("starts with '-'"), std::string::npos);
  }
  EXPECT_FALSE(tree.resolve(""));
  // A tree object is not a commit.
  EXPECT_FALSE(tree.resolve("HEAD^{tree}"));
}

TEST_F(GitTreeTest, TellsAncestorsFromOtherPairs) {
  const GitTree tree = open();
  EXPECT_EQ(tree.is_ancestor(base, m2).value_or(false), true);
  EXPECT_EQ(tree.is_ancestor(s1, m2).value_or(false), true);
  EXPECT_EQ(tree.is_ancestor(m2, base).value_or(true), false);
  EXPECT_EQ(tree.is_ancestor(s1, m1).value_or(true), false);  // neither is the other's
  EXPECT_FALSE(tree.is_ancestor("no-such", m2));
  EXPECT_FALSE(tree.is_ancestor(base, "-x"));
}

TEST_F(GitTreeTest, RangesFollowTheWholeHistoryOrTheFirstParents) {
  const GitTree tree = open();
  const std::string s2 = git(repo, {"rev-parse", "side"});
  const auto full = tree.range(base, "HEAD", false);
  ASSERT_TRUE(full) << full.error().describe();
  EXPECT_EQ(*full, (std::vector<std::string>{s1, s2, m1, merge, m2}));
  const auto first_parent = tree.range(base, "HEAD", true);
  ASSERT_TRUE(first_parent) << first_parent.error().describe();
  EXPECT_EQ(*first_parent, (std::vector<std::string>{m1, merge, m2}));
}

TEST_F(GitTreeTest, AnEmptyRangeIsRefused) {
  const GitTree tree = open();
  const auto same = tree.range(m2, m2, false);
  ASSERT_FALSE(same);
  EXPECT_NE(same.error().context.find("no commit after"), std::string::npos);
  EXPECT_FALSE(tree.range(m2, base, true));
  EXPECT_FALSE(tree.range("-x", m2, true));
}

TEST_F(GitTreeTest, DescribesACommit) {
  const GitTree tree = open();
  const auto info = tree.describe(m1.substr(0, 12));
  ASSERT_TRUE(info) << info.error().describe();
  EXPECT_EQ(info->sha, m1);
  EXPECT_EQ(info->subject, "main one");
  EXPECT_EQ(info->author, "A U Thor <a@example.org>");
  EXPECT_EQ(info->date, "2024-01-04T10:00:00+00:00");
  EXPECT_EQ(info->files, std::vector<std::string>{"c"});
  EXPECT_EQ(info->more_files, 0u);
  EXPECT_FALSE(info->merge);
}

TEST_F(GitTreeTest, DescribesAMergeByWhatItBroughtToTheFirstParent) {
  const GitTree tree = open();
  const auto info = tree.describe(merge);
  ASSERT_TRUE(info) << info.error().describe();
  EXPECT_TRUE(info->merge);
  EXPECT_EQ(info->subject, "merge side");
  EXPECT_EQ(info->files, std::vector<std::string>{"b"});
  // What bisects inside it: from the merge base to the side branch's tip.
  ASSERT_TRUE(info->side.has_value());
  EXPECT_EQ(info->side->base, base);
  EXPECT_EQ(info->side->tip, tree.resolve("side").value_or(""));
  EXPECT_EQ(info->side->commits, 2u);
}

TEST_F(GitTreeTest, ListsAtMost200FilesAndCountsTheRest) {
  for (int i = 0; i < 205; ++i)
    dir.write("repo/many/f" + std::to_string(1000 + i), "x\n");
  git(repo, {"add", "many"});
  git(repo, {"commit", "-q", "-m", "many files"});
  const auto info = open().describe("HEAD");
  ASSERT_TRUE(info) << info.error().describe();
  ASSERT_EQ(info->files.size(), kMaxCommitFiles);
  EXPECT_EQ(info->files.front(), "many/f1000");
  EXPECT_EQ(info->more_files, 5u);
  EXPECT_FALSE(open().describe("no-such"));
}

TEST_F(GitTreeTest, ADirtyTreeIsRefusedWithItsPaths) {
  const GitTree tree = open();
  EXPECT_TRUE(tree.check_clean()) << tree.check_clean().error().describe();

  dir.write("repo/c", "changed\n");
  const auto modified = tree.check_clean();
  ASSERT_FALSE(modified);
  EXPECT_NE(modified.error().context.find("\" M c\""), std::string::npos)
      << modified.error().context;

  git(repo, {"checkout", "-q", "--", "c"});
  dir.write("repo/new file", "x\n");
  const auto untracked = tree.check_clean();
  ASSERT_FALSE(untracked);
  EXPECT_NE(untracked.error().context.find("\"?? new file\""), std::string::npos)
      << untracked.error().context;
  EXPECT_NE(untracked.error().context.find("commit or stash"), std::string::npos);
}

TEST_F(GitTreeTest, ChecksOutCandidatesInAWorkTreeOfItsOwn) {
  const GitTree tree = open();
  const std::string work = dir.path() + "/state/tree";
  ASSERT_TRUE(tree.checkout_worktree(work, base));
  EXPECT_EQ(read_bytes(work + "/a"), "base\n");
  EXPECT_FALSE(std::filesystem::exists(work + "/c"));
  // An untracked file (an in-tree build's leftover) is gone at the next candidate.
  dir.write("state/tree/leftover.o", "x");
  const auto again = tree.checkout_worktree(work, m2);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(read_bytes(work + "/d"), "main two\n");
  EXPECT_FALSE(std::filesystem::exists(work + "/leftover.o"));
  EXPECT_EQ(git(work, {"rev-parse", "HEAD"}), m2);
  // The user's checkout did not move and is clean.
  EXPECT_EQ(head(), m2);
  EXPECT_EQ(git(repo, {"symbolic-ref", "HEAD"}), "refs/heads/main");
  EXPECT_TRUE(tree.check_clean());
  ASSERT_TRUE(tree.checkout_worktree(work, base));
  EXPECT_EQ(head(), m2);
}

TEST_F(GitTreeTest, NeverChecksOutADirectoryThatIsNotItsOwn) {
  const GitTree tree = open();
  // The user's checkout, a folder inside it, and a parent of it.
  EXPECT_FALSE(tree.checkout_worktree(repo, base));
  EXPECT_FALSE(tree.checkout_worktree(repo + "/inside", base));
  EXPECT_FALSE(tree.checkout_worktree(dir.path(), base));
  // A directory with files, and a work tree the user made.
  dir.write("other/file", "mine\n");
  const auto other = tree.checkout_worktree(dir.path() + "/other", base);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().context.find("is not a work tree kdrift made"), std::string::npos);
  EXPECT_EQ(read_bytes(dir.path() + "/other/file"), "mine\n");
  git(repo, {"worktree", "add", "-q", "--detach", dir.path() + "/users", m1});
  dir.write("users/notes", "keep\n");
  EXPECT_FALSE(tree.checkout_worktree(dir.path() + "/users", base));
  EXPECT_EQ(read_bytes(dir.path() + "/users/notes"), "keep\n");
  EXPECT_EQ(git(dir.path() + "/users", {"rev-parse", "HEAD"}), m1);
  EXPECT_FALSE(tree.checkout_worktree(dir.path() + "/state/tree", "-x"));
  EXPECT_EQ(head(), m2);
}

}  // namespace
}  // namespace kdrift
